package service

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/tether-dev/tether/jsonrpc"
)

// Caps of an inline problem bundle: how many files, and how long a name.
const (
	maxBundleFiles    = 1000
	maxBundleNameByte = 255
)

// bundleNames checks every name of an inline bundle and returns them
// sorted. A name must be a plain relative file path, written as it cleans
// ("a/b.txt", not "./a", "a//b", "a/" or "a/.."), so that each names one
// file below the bundle's folder and no two names meet; a name that is
// also another's folder is refused too.
func bundleNames(files map[string]string) ([]string, error) {
	if len(files) > maxBundleFiles {
		return nil, jsonrpc.InvalidParams("problem.files: %d files, over the cap of %d (send a folder path to a server with --problems-root instead)", len(files), maxBundleFiles)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if err := checkBundleName(name); err != nil {
			return nil, jsonrpc.InvalidParams("problem.files[%q]: %v", name, err)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	// Sorted, a folder "a" comes right before the first "a/...", but
	// "a-b" and "a.b" sort between them: look ahead past such names.
	for i, name := range names {
		for _, later := range names[i+1:] {
			if !strings.HasPrefix(later, name) {
				break
			}
			if later[len(name)] == '/' {
				return nil, jsonrpc.InvalidParams("problem.files[%q]: %q is also the folder of %q; a name is a file or a folder, not both", name, name, later)
			}
		}
	}
	return names, nil
}

func checkBundleName(name string) error {
	switch {
	case name == "":
		return errors.New("an empty name")
	case len(name) > maxBundleNameByte:
		return fmt.Errorf("%d bytes, over the cap of %d per name", len(name), maxBundleNameByte)
	case strings.IndexByte(name, 0) >= 0:
		return errors.New("a NUL byte in the name")
	case strings.HasPrefix(name, "/"):
		return errors.New(`an absolute path; names are relative to the bundle, like "data/1.txt"`)
	case path.Clean(name) != name, name == ".", strings.HasPrefix(name, "../"), name == "..":
		return fmt.Errorf(`not a plain relative file path (written as it cleans, %q; no ".", ".." or empty parts, no trailing "/")`, path.Clean(name))
	}
	return nil
}

// writeBundle writes files under dir, in the order of names (checked by
// bundleNames), through an os.Root of dir: the folder creation walks only
// each name's own parts, below dir. Every file and folder is readable by
// the sandbox user whatever the umask.
func writeBundle(dir string, names []string, files map[string]string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("problem bundle: %w", err)
	}
	defer root.Close()
	for _, name := range names {
		if err := writeBundleFile(root, name, files[name]); err != nil {
			return fmt.Errorf("problem.files[%q]: %w", name, err)
		}
	}
	return nil
}

func writeBundleFile(root *os.Root, name, content string) error {
	parts := strings.Split(name, "/")
	for i := range parts[:len(parts)-1] {
		folder := strings.Join(parts[:i+1], "/")
		if err := root.Mkdir(folder, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := root.Chmod(folder, 0o755); err != nil {
			return err
		}
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
