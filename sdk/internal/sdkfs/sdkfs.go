// Package sdkfs writes an SDK embedded in the tether binary (sdk/python,
// sdk/cpp, ...) into a directory a sandboxed toolchain or interpreter reads.
package sdkfs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteTo writes every file of fsys into dir (created if missing).
// Existing files of the same names are overwritten; nothing else in dir is
// touched. Files are 0644, directories 0755, and dir itself is made
// readable and searchable by everyone (mode |= 0755): a sandboxed process
// running as another user must be able to read it, and os.MkdirTemp
// creates 0700 directories. what names the SDK in errors ("pysdk").
func WriteTo(dir string, fsys fs.FS, what string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if perm := info.Mode().Perm(); perm&0o755 != 0o755 {
		if err := os.Chmod(dir, perm|0o755); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: reading embedded %s: %w", what, path, err)
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			return chmod(target, 0o755, what) // whatever the umask
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return fmt.Errorf("%s: reading embedded %s: %w", what, path, err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return chmod(target, 0o644, what)
	})
}

func chmod(path string, mode os.FileMode, what string) error {
	if err := os.Chmod(path, mode); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Digest is a hex SHA-256 over the names and contents of fsys's files, in
// walk order: it changes whenever the SDK does (a build cache's key).
func Digest(fsys fs.FS) string {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		panic("sdkfs: reading an embedded SDK: " + err.Error()) // embed.FS cannot fail
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Sub is fs.Sub for an embedded SDK's own directory (a constant, valid
// path, so it cannot fail).
func Sub(fsys fs.FS, dir string) fs.FS {
	f, err := fs.Sub(fsys, dir)
	if err != nil {
		panic("sdkfs: " + err.Error())
	}
	return f
}

// Embedded is one language's host files as the tether binary carries them:
// each SDK package (csdk, cppsdk, ...) exports one as Files, so the build
// reads FS, WriteTo and Version from it.
type Embedded struct {
	files fs.FS
	name  string // the SDK package, for errors ("csdk")
	// Version names the files' content (for a build cache's key).
	Version string
}

// Embed is the SDK held under dir of fsys (an embed.FS: its src/ folder,
// since the go tool refuses C, C++ and Rust files in a package's own
// directory); name is the SDK package, used in errors.
func Embed(fsys fs.FS, dir, name string) Embedded {
	files := Sub(fsys, dir)
	return Embedded{files: files, name: name, Version: Digest(files)}
}

// FS returns the files, the SDK's src/ folder at its root.
func (e Embedded) FS() fs.FS { return e.files }

// WriteTo writes the files into dir (see the function WriteTo).
func (e Embedded) WriteTo(dir string) error { return WriteTo(dir, e.files, e.name) }
