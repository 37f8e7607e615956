// Package privdir makes a folder that a sandbox user (another uid) reads
// but other local users cannot find: a private parent with an unguessable,
// world-readable child.
package privdir

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
)

// New makes outer, a new folder under parent ("" is the temporary folder)
// named prefix plus a random suffix, mode 0711 (entered, not listed), and
// in it inner, named by 128 random bits, mode 0755 whatever the umask: a
// sandbox user can read inner only by being given its path. The caller
// removes outer when done.
func New(parent, prefix string) (outer, inner string, err error) {
	outer, err = os.MkdirTemp(parent, prefix)
	if err != nil {
		return "", "", err
	}
	var name [16]byte
	rand.Read(name[:])
	inner = filepath.Join(outer, hex.EncodeToString(name[:]))
	if err := os.Chmod(outer, 0o711); err != nil {
		os.RemoveAll(outer)
		return "", "", err
	}
	if err = os.Mkdir(inner, 0o755); err == nil {
		err = os.Chmod(inner, 0o755) // whatever the umask
	}
	if err != nil {
		os.RemoveAll(outer)
		return "", "", err
	}
	return outer, inner, nil
}
