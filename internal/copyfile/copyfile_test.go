package copyfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestToNewCopiesIntoANewFileOnly(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ToNew(src, dst, 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil || string(got) != "content" {
		t.Fatalf("dst holds %q, %v; want the source's content", got, err)
	}
	if info, err := os.Stat(dst); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("dst mode %v, %v; want 0700", info.Mode(), err)
	}
	if err := os.WriteFile(src, []byte("changed"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ToNew(src, dst, 0o700); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("copy onto an existing file: %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "content" {
		t.Fatalf("an existing dst was overwritten: %q", got)
	}
}
