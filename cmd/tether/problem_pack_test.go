package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/supportpkg"
)

func packCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCLI(t, append([]string{"problem", "pack"}, args...)...)
}

func TestProblemPack(t *testing.T) {
	zipPath := filepath.Join(t.TempDir(), "aplusb.zip")
	out, err := packCLI(t, filepath.Join("..", "..", "examples", "aplusb"), "-o", zipPath)
	if err != nil {
		t.Fatal(err)
	}
	zb, err := os.ReadFile(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(zb)
	if !strings.Contains(out, "sha256: "+hex.EncodeToString(sum[:])+"\n") {
		t.Errorf("output does not give the zip's sha256 %x:\n%.300s", sum, out)
	}
	i := strings.Index(out, "url: ")
	if i < 0 {
		t.Fatalf("no url line:\n%.300s", out)
	}
	url := strings.TrimSpace(out[i+len("url: "):])
	if url != supportpkg.Base64URL(zb) {
		t.Errorf("the printed URL is not the zip's base64 URL")
	}
	// What pack prints, a worker reads.
	c, err := supportpkg.NewCache(supportpkg.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if err := c.Extract(context.Background(), url, dest); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"problem.json", "evaluate.py"} {
		want, _ := os.ReadFile(filepath.Join("..", "..", "examples", "aplusb", f))
		if got, _ := os.ReadFile(filepath.Join(dest, f)); !bytes.Equal(got, want) {
			t.Errorf("%s differs after pack and extract", f)
		}
	}

	// --json gives the same figures.
	out, err = packCLI(t, filepath.Join("..", "..", "examples", "aplusb"), "-o", zipPath, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		File, Sha256, URL string
		Bytes             int
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("--json output %.300q: %v", out, err)
	}
	if js.File != zipPath || js.Sha256 != hex.EncodeToString(sum[:]) || js.URL != url || js.Bytes != len(zb) {
		t.Errorf("--json: %+v", js)
	}
}

func TestProblemPackErrors(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(t.TempDir(), "x.zip")
	if _, err := packCLI(t, dir, "-o", zipPath); err == nil || !strings.Contains(err.Error(), "problem.json") {
		t.Errorf("a folder without problem.json: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(`{"runtime_config":{"evaluator":{"command":"ruby x.rb"}}}`), 0o644)
	if _, err := packCLI(t, dir, "-o", zipPath); err == nil || !strings.Contains(err.Error(), "runtime_config.evaluator.command") {
		t.Errorf("a command off the allow-list: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, "evaluate.py"), []byte("print()\n"), 0o644)
	os.Symlink("/etc/passwd", filepath.Join(dir, "secret"))
	if _, err := packCLI(t, dir, "-o", zipPath); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a symlink: %v", err)
	}
	if _, err := os.Stat(zipPath); !os.IsNotExist(err) {
		t.Errorf("a failed pack left %s behind", zipPath)
	}
	if ents, _ := os.ReadDir(filepath.Dir(zipPath)); len(ents) != 0 {
		t.Errorf("a failed pack left %v behind", ents)
	}
	if _, err := packCLI(t); err == nil || !strings.Contains(err.Error(), "one problem folder") {
		t.Errorf("no argument: %v", err)
	}
}
