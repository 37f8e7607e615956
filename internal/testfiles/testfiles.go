// Package testfiles writes the small trees of files tests judge: a
// problem folder, a submission, a bundle.
package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (a slash-separated name below dir: its content) into
// dir, making the folders a name needs; anything that fails fails t.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
