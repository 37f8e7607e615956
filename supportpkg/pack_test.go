package supportpkg

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func zipNames(t *testing.T, zb []byte) []string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}

func TestPackRoundTrip(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"problem.json":                     `{"format_version":1}`,
		"evaluate.py":                      "print('ok')\n",
		"data/hidden.jsonl":                "{}\n",
		"tools/gen.sh":                     "#!/bin/sh\n",
		".git/config":                      "x",
		".DS_Store":                        "x",
		"__pycache__/evaluate.cpython.pyc": "x",
		"data/old.pyc":                     "x",
		"submissions/accepted/sol.py":      "x",
		"nested/submissions/kept.txt":      "kept: only the root submissions/ is the setter's",
	})
	os.Chmod(filepath.Join(dir, "tools/gen.sh"), 0o755)

	var buf bytes.Buffer
	sum, err := Pack(dir, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if sum != sumHex(buf.Bytes()) {
		t.Errorf("Pack returned %s; the bytes written have %s", sum, sumHex(buf.Bytes()))
	}
	want := []string{"data/hidden.jsonl", "evaluate.py", "nested/submissions/kept.txt", "problem.json", "tools/gen.sh"}
	if got := zipNames(t, buf.Bytes()); !slices.Equal(got, want) {
		t.Errorf("entries %v; want %v (files at the root, hidden, caches and submissions/ left out)", got, want)
	}

	// The same folder packs to the same bytes: a resubmission is a cache hit.
	var again bytes.Buffer
	if sum2, _ := Pack(dir, &again); sum2 != sum {
		t.Errorf("packing twice gave %s then %s; want the same checksum", sum, sum2)
	}

	c, _ := newCache(t, Options{})
	dest := t.TempDir()
	if err := c.Extract(context.Background(), Base64URL(buf.Bytes()), dest); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dest, "evaluate.py")); got != "print('ok')\n" {
		t.Errorf("evaluate.py = %q", got)
	}
	for name, want := range map[string]fs.FileMode{"tools/gen.sh": 0o755, "evaluate.py": 0o644} {
		info, err := os.Stat(filepath.Join(dest, name))
		if err != nil || info.Mode() != want {
			t.Errorf("%s: %v %v; want mode %v", name, info.Mode(), err, want)
		}
	}
}

func TestPackExamples(t *testing.T) {
	for _, ex := range []string{"aplusb", "noj"} {
		dir := filepath.Join("..", "examples", ex)
		var buf bytes.Buffer
		if _, err := Pack(dir, &buf); err != nil {
			t.Fatalf("%s: %v", ex, err)
		}
		names := zipNames(t, buf.Bytes())
		for _, must := range []string{"problem.json", "evaluate.py"} {
			if !slices.Contains(names, must) {
				t.Errorf("%s: the package lacks %s at its root: %v", ex, must, names)
			}
		}
	}
}

func TestPackRefuses(t *testing.T) {
	t.Run("no problem.json", func(t *testing.T) {
		dir := writeTree(t, map[string]string{"evaluate.py": "x"})
		_, err := Pack(dir, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "has no problem.json") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		dir := writeTree(t, map[string]string{"problem.json": "{}"})
		os.Symlink("/etc/passwd", filepath.Join(dir, "secret"))
		_, err := Pack(dir, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "secret is a symbolic link") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("too many files", func(t *testing.T) {
		files := map[string]string{"problem.json": "{}"}
		for i := range maxEntries {
			files[fmt.Sprintf("data/f%d", i)] = ""
		}
		_, err := Pack(writeTree(t, files), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "more than 1000 files") {
			t.Errorf("got %v", err)
		}
	})
}

// A link renamed over a file or a folder between the walk's listing and
// its open is refused, not packed through (issue 27, item 14: a root-only
// file ended up in the zip within a second of retries).
func TestPackRefusesALinkSwappedInDuringTheWalk(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret": "root only", "dir/secret": "root only"})
	for _, victim := range []string{"data.txt", "data"} {
		t.Run(victim, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"problem.json": "{}", "data.txt": "plain", "data/1.txt": "one"})
			target := filepath.Join(outside, "secret")
			if victim == "data" {
				target = filepath.Join(outside, "dir")
			}
			link := filepath.Join(dir, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			// Hidden names are skipped, so the link waits as ".link" until the
			// victim has been listed as a file or a folder.
			if err := os.Rename(link, filepath.Join(dir, ".link")); err != nil {
				t.Fatal(err)
			}
			packHook = func(rel string) {
				if rel == victim {
					if err := os.RemoveAll(filepath.Join(dir, victim)); err != nil {
						t.Error(err)
					}
					if err := os.Rename(filepath.Join(dir, ".link"), filepath.Join(dir, victim)); err != nil {
						t.Error(err)
					}
				}
			}
			defer func() { packHook = nil }()
			var zb bytes.Buffer
			_, err := Pack(dir, &zb)
			if err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("a link swapped in for %s: %v, want it refused", victim, err)
			}
			if bytes.Contains(zb.Bytes(), []byte("secret")) {
				t.Errorf("the zip names the link's target")
			}
		})
	}
}
