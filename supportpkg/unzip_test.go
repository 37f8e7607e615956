package supportpkg

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// extractZip runs zb through a cache's Extract into a fresh folder inside a
// parent folder, so that anything written outside it can be seen.
func extractZip(t *testing.T, c *Cache, zb []byte) (dest string, err error) {
	t.Helper()
	parent := t.TempDir()
	dest = filepath.Join(parent, "workspace")
	if err := os.Mkdir(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	err = c.Extract(context.Background(), Base64URL(zb), dest)
	if err != nil {
		ents, _ := os.ReadDir(parent)
		if len(ents) != 1 {
			t.Errorf("a failed extract wrote next to its destination: %v", ents)
		}
	}
	return dest, err
}

func TestUnsafeNames(t *testing.T) {
	c, _ := newCache(t, Options{})
	for _, tc := range []struct{ name, word string }{
		{"../evil.py", "'..'"},
		{"a/../../evil.py", "'..'"},
		{"ok/../../../../tmp/evil.py", "'..'"},
		{"/etc/evil", "absolute"},
		{`..\evil.py`, "backslash"},
		{"", "empty name"},
		{"a/\x00b", "NUL"},
	} {
		t.Run(fmt.Sprintf("%q", tc.name), func(t *testing.T) {
			// A good entry first: it must be gone again after the failure.
			zb := makeZip(t, zipEntry{Name: "evaluate.py", Body: "x"}, zipEntry{Name: tc.name, Body: "evil"})
			dest, err := extractZip(t, c, zb)
			mustFail(t, err, tc.word, "inside the package")
			emptyDir(t, dest)
		})
	}
}

func TestSymlinkEntry(t *testing.T) {
	c, _ := newCache(t, Options{})
	zb := makeZip(t,
		zipEntry{Name: "link", Body: "/etc/passwd", Mode: fs.ModeSymlink | 0o777},
		zipEntry{Name: "link/evil", Body: "x"})
	dest, err := extractZip(t, c, zb)
	mustFail(t, err, `entry "link" is a symbolic link`)
	emptyDir(t, dest)
	// Other special files too.
	zb = makeZip(t, zipEntry{Name: "fifo", Mode: fs.ModeNamedPipe | 0o644})
	dest, err = extractZip(t, c, zb)
	mustFail(t, err, "not a regular file")
	emptyDir(t, dest)
}

func TestDuplicateAndClashingEntries(t *testing.T) {
	c, _ := newCache(t, Options{})
	dest, err := extractZip(t, c, makeZip(t, zipEntry{Name: "a.py", Body: "1"}, zipEntry{Name: "./a.py", Body: "2"}))
	mustFail(t, err, "appears twice")
	emptyDir(t, dest)
	dest, err = extractZip(t, c, makeZip(t, zipEntry{Name: "a", Body: "1"}, zipEntry{Name: "a/b", Body: "2"}))
	mustFail(t, err, `folder "a" clashes`)
	emptyDir(t, dest)
}

func TestEntryCountCap(t *testing.T) {
	c, _ := newCache(t, Options{})
	var es []zipEntry
	for i := range maxEntries + 1 {
		es = append(es, zipEntry{Name: fmt.Sprintf("f%d", i)})
	}
	dest, err := extractZip(t, c, makeZip(t, es...))
	mustFail(t, err, "1001 entries, more than the cap of 1000")
	emptyDir(t, dest)
	// At the cap is fine.
	if _, err := extractZip(t, c, makeZip(t, es[:maxEntries]...)); err != nil {
		t.Errorf("%d entries: %v", maxEntries, err)
	}
}

// rawZip writes entries whose headers declare sizes of our choosing.
func rawZip(t *testing.T, entries []*zip.FileHeader, bodies [][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, h := range entries {
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(bodies[i])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflate(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func TestZipBomb(t *testing.T) {
	c, _ := newCache(t, Options{})
	// Declared: ten entries of 60 MiB, 600 MiB in all, from a few bytes.
	t.Run("declared", func(t *testing.T) {
		var hs []*zip.FileHeader
		var bodies [][]byte
		body := deflate(t, []byte("x"))
		for i := range 10 {
			hs = append(hs, &zip.FileHeader{Name: fmt.Sprintf("z%d", i), Method: zip.Deflate,
				CompressedSize64: uint64(len(body)), UncompressedSize64: 60 << 20})
			bodies = append(bodies, body)
		}
		dest, err := extractZip(t, c, rawZip(t, hs, bodies))
		mustFail(t, err, "more than the cap of 512 MiB in all", "zip bomb")
		emptyDir(t, dest)
	})
	t.Run("one file", func(t *testing.T) {
		body := deflate(t, []byte("x"))
		hs := []*zip.FileHeader{{Name: "big", Method: zip.Deflate, CompressedSize64: uint64(len(body)), UncompressedSize64: 65 << 20}}
		dest, err := extractZip(t, c, rawZip(t, hs, [][]byte{body}))
		mustFail(t, err, `entry "big"`, "cap of 64 MiB per file")
		emptyDir(t, dest)
	})
	// Real: 3 MiB of zeros deflate to a few KiB; with the caps shrunk to
	// 1 MiB the inflated bytes are what trips them.
	t.Run("real", func(t *testing.T) {
		small, _ := newCache(t, Options{})
		small.limits.totalBytes = 1 << 20
		zeros := make([]byte, 3<<20)
		zb := makeZip(t, zipEntry{Name: "evaluate.py", Body: "x"}, zipEntry{Name: "zeros", Body: string(zeros)})
		if len(zb) > 64<<10 {
			t.Fatalf("the bomb is %d bytes; want a small one", len(zb))
		}
		dest, err := extractZip(t, small, zb)
		mustFail(t, err, "more than the cap of 1 MiB in all", "zip bomb")
		emptyDir(t, dest)
	})
	// Lying: the header says 10 bytes, the data inflates to 3 MiB; the
	// bytes really inflated are counted, never the header's word.
	t.Run("lying header", func(t *testing.T) {
		body := deflate(t, make([]byte, 3<<20))
		hs := []*zip.FileHeader{{Name: "liar", Method: zip.Deflate, CompressedSize64: uint64(len(body)), UncompressedSize64: 10}}
		dest, err := extractZip(t, c, rawZip(t, hs, [][]byte{body}))
		mustFail(t, err, `entry "liar"`)
		emptyDir(t, dest)
	})
}

func TestNotAZip(t *testing.T) {
	c, _ := newCache(t, Options{})
	dest, err := extractZip(t, c, []byte("this is not a zip file at all"))
	mustFail(t, err, "not a valid zip file")
	emptyDir(t, dest)
}

func TestModes(t *testing.T) {
	c, _ := newCache(t, Options{})
	zb := makeZip(t,
		zipEntry{Name: "run.sh", Body: "#!/bin/sh\n", Mode: 0o700},
		zipEntry{Name: "setuid", Body: "x", Mode: fs.ModeSetuid | 0o4755},
		zipEntry{Name: "private.txt", Body: "x", Mode: 0o600},
		zipEntry{Name: "writable.txt", Body: "x", Mode: 0o666},
		zipEntry{Name: "sub/dir/data.txt", Body: "x", Mode: 0o400},
		zipEntry{Name: "empty/", Mode: fs.ModeDir | 0o700},
	)
	old := setUmask(0o077) // a strict umask must not make the package unreadable
	dest, err := extractZip(t, c, zb)
	setUmask(old)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{
		"run.sh":           0o755,
		"setuid":           0o755,
		"private.txt":      0o644,
		"writable.txt":     0o644,
		"sub":              fs.ModeDir | 0o755,
		"sub/dir":          fs.ModeDir | 0o755,
		"sub/dir/data.txt": 0o644,
		"empty":            fs.ModeDir | 0o755,
	} {
		info, err := os.Lstat(filepath.Join(dest, name))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := info.Mode(); got != want {
			t.Errorf("%s: mode %v; want %v", name, got, want)
		}
	}
	if got := readFile(t, filepath.Join(dest, "run.sh")); !strings.HasPrefix(got, "#!") {
		t.Errorf("run.sh = %q", got)
	}
}

// TestCentralDirectoryFlood: a package of many entry records is refused
// before archive/zip holds them all in memory.
func TestCentralDirectoryFlood(t *testing.T) {
	c, _ := newCache(t, Options{})
	c.limits.records = 100
	var es []zipEntry
	for i := range 150 {
		es = append(es, zipEntry{Name: fmt.Sprintf("f%d", i)})
	}
	dest, err := extractZip(t, c, makeZip(t, es...))
	mustFail(t, err, "more than 100 entry records")
	emptyDir(t, dest)
}

func TestCountSignature(t *testing.T) {
	sig := []byte("PK\x01\x02")
	for _, tc := range []struct {
		data []byte
		want int
	}{
		{nil, 0},
		{[]byte("PK\x01\x02"), 1},
		{[]byte("xxPK\x01\x02PK\x01\x02yy"), 2},
		// Across the 1 MiB chunk boundary, counted once.
		{append(bytes.Repeat([]byte("x"), 1<<20-2), []byte("PK\x01\x02PK\x01\x02")...), 2},
		{append(bytes.Repeat([]byte("x"), 1<<20), []byte("PK\x01\x02")...), 1},
		{append(bytes.Repeat([]byte("x"), 1<<20-4), []byte("PK\x01\x02")...), 1},
	} {
		got, err := countSignature(bytes.NewReader(tc.data), int64(len(tc.data)), sig, 1000)
		if err != nil || got != tc.want {
			t.Errorf("countSignature(%d bytes) = %d, %v; want %d", len(tc.data), got, err, tc.want)
		}
	}
}
