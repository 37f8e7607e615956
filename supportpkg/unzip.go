package supportpkg

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// unzip unpacks the zip in ra into destDir (existing, empty). Every entry
// must have a local name (no "..", not absolute, no backslash), be a regular
// file or a folder (no link, device or pipe), and fit the caps; all writes go
// through an os.Root, so nothing lands outside destDir even if a check were
// wrong. Files are 0644, or 0755 when the entry had an execute bit; folders
// 0755, whatever the umask. On error destDir is emptied again.
func unzip(ctx context.Context, ra io.ReaderAt, size int64, destDir string, lim limits) (err error) {
	// archive/zip reads the whole central directory before we can count
	// it, whatever the count it declares: about 250 bytes of memory per
	// 46-byte record. Count the records' signatures first, so a package of
	// nothing but records cannot cost a worker a gigabyte.
	if n, err := countSignature(ra, size, centralSig, lim.records+1); err != nil {
		return fail(err, "reading the package failed")
	} else if n > lim.records {
		return fail(nil, fmt.Sprintf("the package holds more than %d entry records, far more than the cap of %d entries", lim.records, lim.entries))
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fail(err, "the package is not a valid zip file")
	}
	if n := len(zr.File); n > lim.entries {
		return fail(nil, fmt.Sprintf("the package has %d entries, more than the cap of %d", n, lim.entries))
	}
	var declared uint64
	for _, f := range zr.File {
		if f.UncompressedSize64 > uint64(lim.fileBytes) {
			return fail(nil, fmt.Sprintf("entry %q unpacks to %d MiB, more than the cap of %d MiB per file", f.Name, f.UncompressedSize64>>20, lim.fileBytes>>20))
		}
		declared += f.UncompressedSize64
		if declared > uint64(lim.totalBytes) {
			return fail(nil, fmt.Sprintf("the package unpacks to more than the cap of %d MiB in all (a zip bomb?)", lim.totalBytes>>20))
		}
	}

	root, err := os.OpenRoot(destDir)
	if err != nil {
		return fail(err, "the destination folder cannot be opened")
	}
	defer root.Close()
	defer func() {
		if err != nil {
			empty(root)
		}
	}()

	u := unzipper{ctx: ctx, root: root, dirs: map[string]bool{}, left: lim.totalBytes, lim: lim}
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return fail(err, "unpacking stopped")
		}
		if err := u.entry(f); err != nil {
			return err
		}
	}
	return nil
}

type unzipper struct {
	ctx  context.Context
	root *os.Root
	dirs map[string]bool // folders made so far
	left int64           // bytes that may still be written
	lim  limits
}

func (u *unzipper) entry(f *zip.File) error {
	name, isDir, err := entryName(f.Name)
	if err != nil {
		return err
	}
	mode := f.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return fail(nil, fmt.Sprintf("entry %q is a symbolic link; a package may not hold links", f.Name))
	case isDir || mode.IsDir():
		if name == "." {
			return nil
		}
		return u.mkdirs(name)
	case !mode.IsRegular():
		return fail(nil, fmt.Sprintf("entry %q is not a regular file (%s); a package holds files and folders only", f.Name, mode.Type()))
	case name == ".":
		return fail(nil, fmt.Sprintf("entry %q has no file name", f.Name))
	case f.Flags&0x1 != 0:
		return fail(nil, fmt.Sprintf("entry %q is encrypted; a package is never encrypted", f.Name))
	}
	if dir := path.Dir(name); dir != "." {
		if err := u.mkdirs(dir); err != nil {
			return err
		}
	}
	rc, err := f.Open()
	if err != nil {
		if errors.Is(err, zip.ErrAlgorithm) {
			return fail(nil, fmt.Sprintf("entry %q uses compression method %d; only stored and deflate are read", f.Name, f.Method))
		}
		return fail(err, fmt.Sprintf("entry %q cannot be read", f.Name))
	}
	defer rc.Close()
	out, err := u.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fail(nil, fmt.Sprintf("entry %q appears twice or clashes with a folder", f.Name))
		}
		return fail(err, fmt.Sprintf("entry %q cannot be written", f.Name))
	}
	defer out.Close()
	// The declared sizes passed the caps; the bytes really inflated are
	// counted too, whatever the headers say.
	totalBound := u.left < u.lim.fileBytes
	cap := min(u.lim.fileBytes, u.left)
	n, err := io.Copy(out, io.LimitReader(ctxReader{u.ctx, rc}, cap+1))
	u.left -= n
	switch {
	case n > cap && totalBound:
		return fail(nil, fmt.Sprintf("the package unpacks to more than the cap of %d MiB in all (a zip bomb?)", u.lim.totalBytes>>20))
	case n > cap:
		return fail(nil, fmt.Sprintf("entry %q unpacks to more than the cap of %d MiB per file (a zip bomb?)", f.Name, u.lim.fileBytes>>20))
	case err != nil && u.ctx.Err() != nil:
		return fail(err, "unpacking stopped")
	case err != nil:
		return fail(err, fmt.Sprintf("entry %q is damaged", f.Name))
	}
	perm := fs.FileMode(0o644)
	if mode.Perm()&0o111 != 0 {
		perm = 0o755
	}
	// Chmod on the open file: the umask must not make it unreadable to a
	// sandbox that runs as another user.
	if err := out.Chmod(perm); err != nil {
		return fail(err, fmt.Sprintf("entry %q: setting its mode failed", f.Name))
	}
	if err := out.Close(); err != nil {
		return fail(err, fmt.Sprintf("entry %q cannot be written", f.Name))
	}
	return nil
}

// mkdirs makes each folder of dir that does not exist yet, 0755.
func (u *unzipper) mkdirs(dir string) error {
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if u.dirs[p] {
			continue
		}
		if err := u.root.Mkdir(p, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fail(nil, fmt.Sprintf("folder %q clashes with a file of the same name", p))
			}
			return fail(err, fmt.Sprintf("folder %q cannot be made", p))
		}
		if err := u.root.Chmod(p, 0o755); err != nil {
			return fail(err, fmt.Sprintf("folder %q: setting its mode failed", p))
		}
		u.dirs[p] = true
	}
	return nil
}

// entryName checks a zip entry name and returns it cleaned, and whether it
// names a folder (a trailing slash).
func entryName(raw string) (string, bool, error) {
	bad := func(why string) (string, bool, error) {
		return "", false, fail(nil, fmt.Sprintf("entry %q %s; every name must stay inside the package", raw, why))
	}
	switch {
	case raw == "":
		return bad("has an empty name")
	case strings.ContainsRune(raw, 0):
		return bad("holds a NUL byte")
	case strings.ContainsRune(raw, '\\'):
		return bad("uses a backslash (a Windows path?)")
	case strings.HasPrefix(raw, "/"):
		return bad("is an absolute path")
	}
	for _, seg := range strings.Split(raw, "/") {
		if seg == ".." {
			return bad("climbs out with '..'")
		}
	}
	isDir := strings.HasSuffix(raw, "/")
	name := path.Clean(raw)
	if name != "." && !filepath.IsLocal(name) {
		return bad("is not a local path")
	}
	return name, isDir, nil
}

// empty removes what unzip wrote, so a failed package leaves nothing behind.
func empty(root *os.Root) {
	d, err := root.Open(".")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		root.RemoveAll(n)
	}
}

// ctxReader ends a long entry's copy when the task is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// centralSig starts each record of a zip's central directory.
var centralSig = []byte("PK\x01\x02")

// countSignature counts sig in ra's first size bytes, stopping at stop.
// Stored data may hold the signature too (a zip inside the zip), so the
// caller's bound is generous; what matters is that it is a bound.
func countSignature(ra io.ReaderAt, size int64, sig []byte, stop int) (int, error) {
	const chunk = 1 << 20
	buf := make([]byte, chunk+len(sig)-1)
	n := 0
	for off := int64(0); off < size && n < stop; off += chunk {
		m, err := ra.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if err != nil && err != io.EOF {
			return n, err
		}
		// Chunks overlap by len(sig)-1 bytes; a match is counted in the
		// chunk where it starts.
		b := buf[:m]
		for i := bytes.Index(b, sig); i >= 0 && i < chunk; {
			n++
			j := bytes.Index(b[i+1:], sig)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return n, nil
}
