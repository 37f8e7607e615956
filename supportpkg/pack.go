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
	"path/filepath"
	"strings"
	"time"
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
func Pack(problemDir string, w io.Writer) (sha256hex string, err error) {
	info, err := os.Stat(filepath.Join(problemDir, "problem.json"))
	if err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("pack: %s is not a problem folder: it has no problem.json", problemDir)
	}
	h := sha256.New()
	cw := &cappedWriter{w: io.MultiWriter(w, h), left: defaultLimits.packageBytes}
	zw := zip.NewWriter(cw)
	entries, total := 0, int64(0)
	err = filepath.WalkDir(problemDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("pack: reading %s: %w", p, err)
		}
		rel, err := filepath.Rel(problemDir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if skipped(rel, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			return fmt.Errorf("pack: %s is a symbolic link; a package holds files only (copy the file in its place)", p)
		case d.IsDir():
			return nil
		case !t.IsRegular():
			return fmt.Errorf("pack: %s is not a regular file (%s)", p, t)
		}
		fi, err := d.Info()
		if err != nil {
			return fmt.Errorf("pack: reading %s: %w", p, err)
		}
		entries++
		total += fi.Size()
		switch {
		case entries > defaultLimits.entries:
			return fmt.Errorf("pack: %s holds more than %d files, the cap of a package", problemDir, defaultLimits.entries)
		case fi.Size() > defaultLimits.fileBytes:
			return fmt.Errorf("pack: %s is %d MiB, more than the cap of %d MiB per file", p, fi.Size()>>20, defaultLimits.fileBytes>>20)
		case total > defaultLimits.totalBytes:
			return fmt.Errorf("pack: the files of %s come to more than the cap of %d MiB", problemDir, defaultLimits.totalBytes>>20)
		}
		return addFile(zw, p, rel, fi.Mode())
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		if errors.Is(err, errPackageTooBig) {
			return "", fmt.Errorf("pack: the zip of %s is more than the cap of %d MiB a package may have", problemDir, defaultLimits.packageBytes>>20)
		}
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
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

func addFile(zw *zip.Writer, p, rel string, mode fs.FileMode) error {
	hdr := &zip.FileHeader{Name: rel, Method: zip.Deflate, Modified: packTime}
	perm := fs.FileMode(0o644)
	if mode.Perm()&0o111 != 0 {
		perm = 0o755
	}
	hdr.SetMode(perm)
	dst, err := zw.CreateHeader(hdr)
	if err != nil {
		return err
	}
	src, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("pack: reading %s: %w", p, err)
	}
	defer src.Close()
	if _, err := io.Copy(dst, src); err != nil {
		if errors.Is(err, errPackageTooBig) {
			return err
		}
		return fmt.Errorf("pack: reading %s: %w", p, err)
	}
	return nil
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
