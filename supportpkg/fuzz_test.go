package supportpkg

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FuzzUnzip: whatever the bytes, unzip never panics, never writes outside
// its destination, leaves it empty on error, and on success leaves only
// folders 0755 and files 0644 or 0755.
func FuzzUnzip(f *testing.F) {
	f.Add(makeZip(f, zipEntry{Name: "evaluate.py", Body: "print(1)"}, zipEntry{Name: "d/x", Body: "x", Mode: 0o755}))
	f.Add(makeZip(f, zipEntry{Name: "../evil", Body: "x"}))
	f.Add(makeZip(f, zipEntry{Name: "link", Body: "/etc", Mode: fs.ModeSymlink | 0o777}, zipEntry{Name: "link/x", Body: "x"}))
	f.Add(makeZip(f, zipEntry{Name: "a", Body: "x"}, zipEntry{Name: "a/b", Body: "y"}, zipEntry{Name: "e/"}))
	f.Add([]byte("PK\x03\x04"))
	lim := limits{packageBytes: 1 << 20, entries: 50, fileBytes: 1 << 16, totalBytes: 1 << 18}
	f.Fuzz(func(t *testing.T, zb []byte) {
		parent := t.TempDir()
		dest := filepath.Join(parent, "workspace")
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		err := unzip(context.Background(), bytesReaderAt(zb), int64(len(zb)), dest, lim)
		if ents, _ := os.ReadDir(parent); len(ents) != 1 {
			t.Fatalf("unzip wrote next to its destination: %v", ents)
		}
		if err != nil {
			if ents, _ := os.ReadDir(dest); len(ents) != 0 {
				t.Fatalf("error %v left %d entries", err, len(ents))
			}
			return
		}
		filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == dest {
				return err
			}
			info, err := os.Lstat(p)
			if err != nil {
				return err
			}
			m := info.Mode()
			if m != fs.ModeDir|0o755 && m != 0o644 && m != 0o755 {
				t.Errorf("%s: mode %v", p, m)
			}
			return nil
		})
	})
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
