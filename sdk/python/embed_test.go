package pysdk

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

func TestEmbeddedFilesAreSourcesOnly(t *testing.T) {
	seen := map[string]bool{}
	err := fs.WalkDir(FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" || d.Name() == "tests" {
				t.Errorf("embedded directory %s must not be shipped", path)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".py") {
			t.Errorf("embedded non-source file %s", path)
		}
		seen[path] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"tether_sdk/__init__.py", "tether_sdk/codec.py", "tether_sdk/_frames.py",
		"tether_sdk/evaluator/__init__.py", "tether_sdk/solution/host.py",
		"noj_evaluator_sdk/runner.py", "noj_solution_sdk/host.py",
	} {
		if !seen[want] {
			t.Errorf("%s is not embedded", want)
		}
	}
}

// Every .py file on disk in the packages is embedded: a new subpackage
// without a //go:embed pattern would otherwise be silently missing.
func TestEveryPackageFileIsEmbedded(t *testing.T) {
	for _, pkg := range Packages {
		err := filepath.WalkDir(pkg, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".py") {
				return nil
			}
			if _, err := fs.Stat(FS(), filepath.ToSlash(path)); err != nil {
				t.Errorf("%s exists on disk but is not embedded (add a //go:embed pattern)", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriteToWritesEveryFile(t *testing.T) {
	dir := t.TempDir()
	if err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	// Twice: overwriting is allowed.
	if err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	err := fs.WalkDir(FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, _ := fs.ReadFile(FS(), path)
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Errorf("%s not written: %v", path, err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the embedded copy", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteToMakesAPrivateTempDirReadable(t *testing.T) {
	dir, err := os.MkdirTemp(t.TempDir(), "sdk-*") // 0700, as the judge makes it
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "tether_sdk"), filepath.Join(dir, "tether_sdk", "evaluator")} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm()&0o755 != 0o755 {
			t.Errorf("%s has mode %v; other users cannot import from it", p, info.Mode().Perm())
		}
	}
	info, err := os.Stat(filepath.Join(dir, "tether_sdk", "codec.py"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("codec.py has mode %v, want 0644", info.Mode().Perm())
	}
}

func TestWriteToReportsUnwritableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteTo(filepath.Join(file, "sub"))
	if err == nil {
		t.Fatal("WriteTo under a regular file succeeded")
	}
	if !strings.Contains(err.Error(), "pysdk:") {
		t.Errorf("error %q does not say where it failed", err)
	}
}

// The written packages work: the Neuro OJ host started from them answers a
// call, exactly as the judge starts it.
func TestWrittenSDKServesACall(t *testing.T) {
	python := testenv.Python3(t)
	dir := t.TempDir()
	if err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	entry := filepath.Join(work, "main.py")
	if err := os.WriteFile(entry, []byte("def add(a, b):\n    return a + b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-m", "noj_solution_sdk.host", "--entry", "main.py")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stdin = strings.NewReader(`{"type":"call","id":"c1","fn":"add","args":[40,2]}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("host failed: %v", err)
	}
	var frames []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var f map[string]any
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("host wrote a non-frame line %q", sc.Text())
		}
		frames = append(frames, f)
	}
	if len(frames) != 2 || frames[0]["type"] != "ready" {
		t.Fatalf("want ready then one answer, got %v", frames)
	}
	if frames[1]["type"] != "result" || frames[1]["id"] != "c1" || frames[1]["value"] != float64(42) {
		t.Fatalf("want result 42 for c1, got %v", frames[1])
	}
}
