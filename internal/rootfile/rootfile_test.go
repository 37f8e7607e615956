package rootfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/internal/rootfile"
)

func TestRead(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write := func(name, body string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.json", "ok")
	write("sub/inner.json", "inner")
	write("big", strings.Repeat("x", 11))
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"in-link": "sub/inner.json", "out-link": filepath.Join(outside, "secret"),
		"zero": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, want := range map[string]string{"ok.json": "ok", "in-link": "inner", "sub/inner.json": "inner"} {
		if got, err := rootfile.Read(root, name, 10); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	for name, want := range map[string]error{"big": rootfile.ErrTooBig, "fifo": rootfile.ErrNotRegular, "sub": rootfile.ErrNotRegular,
		"missing": fs.ErrNotExist} {
		if _, err := rootfile.Read(root, name, 10); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	for _, name := range []string{"out-link", "zero", "../" + filepath.Base(outside) + "/secret", filepath.Join(outside, "secret")} {
		if got, err := rootfile.Read(root, name, 10); err == nil {
			t.Errorf("%s: read %q outside the folder", name, got)
		}
	}
}
