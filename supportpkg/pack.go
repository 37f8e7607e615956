package supportpkg

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// packTime is every entry's modification time, so that packing the same
// folder twice gives the same bytes, the same checksum and a cache hit.
var packTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// Pack writes problemDir as a Neuro OJ support package (zip) to w and
// returns its SHA-256 (hex). The folder's files go at the zip's root as they
// lie (problem.json, evaluate.py, data...), except what a judge never needs:
// hidden names (".git", ".DS_Store"), __pycache__ and *.pyc, and the
// setter's own submissions/ tree. A link or special file is an error, as is
// a folder beyond the caps Extract applies: what Pack writes, Extract reads.
//
// Every file and folder is opened relative to its opened parent without
// following a link, and its size is the opened file's: a link renamed over
// a file or folder while the walk runs is refused, never packed through.
func Pack(problemDir string, w io.Writer) (sha256hex string, err error) {
	top, err := os.Open(problemDir)
	if err != nil {
		return "", fmt.Errorf("pack: %s is not a problem folder: it has no problem.json", problemDir)
	}
	defer top.Close()
	f, _, err := openNoFollow(top, "problem.json", 0)
	if err != nil {
		return "", fmt.Errorf("pack: %s is not a problem folder: it has no problem.json", problemDir)
	}
	f.Close()
	h := sha256.New()
	cw := &cappedWriter{w: io.MultiWriter(w, h), left: defaultLimits.packageBytes}
	pk := &packer{dir: problemDir, zw: zip.NewWriter(cw)}
	err = pk.folder(top, "")
	if err == nil {
		err = pk.zw.Close()
	}
	if err != nil {
		if errors.Is(err, errPackageTooBig) {
			return "", fmt.Errorf("pack: the zip of %s is more than the cap of %d MiB a package may have", problemDir, defaultLimits.packageBytes>>20)
		}
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// packer is one Pack's walk: what it has written and counted so far.
type packer struct {
	dir     string // the folder as the caller named it, for errors
	zw      *zip.Writer
	entries int
	total   int64
}

// packHook, when set (by tests), runs just before each entry is opened.
var packHook func(rel string)

// folder packs the entries of the opened folder d, whose path in the zip
// is rel ("" at the top), in name order (the same folder, the same bytes).
func (pk *packer) folder(d *os.File, rel string) error {
	list, err := d.ReadDir(-1)
	if err != nil {
		return fmt.Errorf("pack: reading %s: %w", pk.path(rel), err)
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range list {
		name := path.Join(rel, e.Name())
		p := pk.path(name)
		if skipped(name, e) {
			continue
		}
		t := e.Type()
		switch {
		case t&fs.ModeSymlink != 0:
			return fmt.Errorf("pack: %s is a symbolic link; a package holds files only (copy the file in its place)", p)
		case !t.IsDir() && !t.IsRegular():
			return fmt.Errorf("pack: %s is not a regular file (%s)", p, t)
		}
		if packHook != nil {
			packHook(name)
		}
		f, info, err := openNoFollow(d, e.Name(), t)
		if err != nil {
			return fmt.Errorf("pack: %s %w", p, err)
		}
		if t.IsDir() {
			err = pk.folder(f, name)
		} else {
			err = pk.file(f, info, name)
		}
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (pk *packer) path(rel string) string { return filepath.Join(pk.dir, filepath.FromSlash(rel)) }

// errLinkSwapped: what was a file or folder when listed is a link when opened.
var errLinkSwapped = errors.New("is a symbolic link; a package holds files only (copy the file in its place)")

// openNoFollow opens name in the opened folder d without following a link
// (nor waiting on a FIFO), and checks that it is still of type want (a
// folder, or 0: a regular file).
func openNoFollow(d *os.File, name string, want fs.FileMode) (*os.File, fs.FileInfo, error) {
	fd, err := unix.Openat(int(d.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, nil, errLinkSwapped
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot be opened: %w", err)
	}
	f := os.NewFile(uintptr(fd), name)
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cannot be read: %w", err)
	}
	if info.Mode().Type() != want.Type() {
		f.Close()
		return nil, nil, fmt.Errorf("changed while being packed (it is now %s); pack again", info.Mode().Type())
	}
	return f, info, nil
}

// file adds the opened regular file f to the zip, within the caps.
func (pk *packer) file(f *os.File, info fs.FileInfo, rel string) error {
	p := pk.path(rel)
	pk.entries++
	pk.total += info.Size()
	switch {
	case pk.entries > defaultLimits.entries:
		return fmt.Errorf("pack: %s holds more than %d files, the cap of a package", pk.dir, defaultLimits.entries)
	case info.Size() > defaultLimits.fileBytes:
		return fmt.Errorf("pack: %s is %d MiB, more than the cap of %d MiB per file", p, info.Size()>>20, defaultLimits.fileBytes>>20)
	case pk.total > defaultLimits.totalBytes:
		return fmt.Errorf("pack: the files of %s come to more than the cap of %d MiB", pk.dir, defaultLimits.totalBytes>>20)
	}
	hdr := &zip.FileHeader{Name: rel, Method: zip.Deflate, Modified: packTime}
	perm := fs.FileMode(0o644)
	if info.Mode().Perm()&0o111 != 0 {
		perm = 0o755
	}
	hdr.SetMode(perm)
	dst, err := pk.zw.CreateHeader(hdr)
	if err != nil {
		return err
	}
	// No more than the size counted: a file growing while read stays
	// within the caps.
	if _, err := io.Copy(dst, io.LimitReader(f, info.Size())); err != nil {
		if errors.Is(err, errPackageTooBig) {
			return err
		}
		return fmt.Errorf("pack: reading %s: %w", p, err)
	}
	return nil
}

// skipped says whether pack leaves rel out (see Pack).
func skipped(rel string, d fs.DirEntry) bool {
	name := d.Name()
	switch {
	case strings.HasPrefix(name, "."), name == "__pycache__", strings.HasSuffix(name, ".pyc"):
		return true
	case rel == "submissions" && d.IsDir():
		return true
	}
	return false
}

var errPackageTooBig = errors.New("package too big")

// cappedWriter fails once more than left bytes are written.
type cappedWriter struct {
	w    io.Writer
	left int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, errPackageTooBig
	}
	c.left -= int64(len(p))
	return c.w.Write(p)
}

// Base64URL returns the noj-download://base64/?content=<std base64>&checksum_sha256=<hex>
// URL of a zip: standard base64, not percent-encoded, as Neuro OJ's core
// writes it.
func Base64URL(zip []byte) string {
	sum := sha256.Sum256(zip)
	return schemeNOJ + "base64/?content=" + base64.StdEncoding.EncodeToString(zip) + "&" + checksumKey + "=" + hex.EncodeToString(sum[:])
}
