package privdir

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The outer folder may be entered, not listed; the inner one is readable
// and named by 128 random bits, whatever the umask.
func TestNewModesAndNames(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	parent := t.TempDir()
	outer, inner, err := New(parent, "x-")
	if err != nil {
		t.Fatal(err)
	}
	outer2, inner2, err := New(parent, "x-")
	if err != nil {
		t.Fatal(err)
	}
	if outer == outer2 || filepath.Base(inner) == filepath.Base(inner2) {
		t.Fatal("two folders share a name")
	}
	for dir, want := range map[string]os.FileMode{outer: 0o711, inner: 0o755} {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %04o", dir, fi.Mode().Perm(), err, want)
		}
	}
	if filepath.Dir(inner) != outer || len(filepath.Base(inner)) != 32 || filepath.Dir(outer) != parent {
		t.Fatalf("layout %s / %s under %s", outer, inner, parent)
	}
}
