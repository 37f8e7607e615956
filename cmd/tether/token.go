package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// serverToken is the credential of a server other local users can reach:
// read from path when the file exists (it must be private to its owner),
// else generated and written there with mode 0600. With no path, it goes to
// a fresh file in $XDG_RUNTIME_DIR/tether (or the user's cache folder), as
// Jupyter keeps its server tokens; cleanup removes a file it created.
func serverToken(path string) (token, file string, cleanup func(), err error) {
	cleanup = func() {}
	chosen := path != ""
	if chosen {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			info, err := os.Stat(path)
			if err != nil {
				return "", "", cleanup, err
			}
			if info.Mode().Perm()&0o077 != 0 {
				return "", "", cleanup, fmt.Errorf("--token-file %s: mode %v lets other users read it; chmod 600 %s", path, info.Mode().Perm(), path)
			}
			token = strings.TrimSpace(string(b))
			if len(token) < 16 {
				return "", "", cleanup, fmt.Errorf("--token-file %s: the token is shorter than 16 characters", path)
			}
			return token, path, cleanup, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", "", cleanup, fmt.Errorf("--token-file: %w", err)
		}
	} else {
		dir := os.Getenv("XDG_RUNTIME_DIR")
		if dir == "" {
			if dir, err = os.UserCacheDir(); err != nil {
				dir = os.TempDir()
			}
		}
		dir = filepath.Join(dir, "tether")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", "", cleanup, fmt.Errorf("token file: %w (give --token-file PATH)", err)
		}
		path = filepath.Join(dir, fmt.Sprintf("serve-%d.token", os.Getpid()))
	}
	var b [32]byte
	rand.Read(b[:])
	token = hex.EncodeToString(b[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", cleanup, fmt.Errorf("token file: %w", err)
	}
	_, err = f.WriteString(token + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", "", cleanup, fmt.Errorf("token file: %w", err)
	}
	if chosen {
		return token, path, cleanup, nil // the user's file, for later runs too
	}
	return token, path, func() { os.Remove(path) }, nil
}
