package testfiles

import (
	"os"
	"path/filepath"
	"testing"
)

// Write makes the folders a name needs and writes each file.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"problem.json": "{}", "submissions/accepted/a.py": "x = 1\n"}
	Write(t, dir, files)
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}
