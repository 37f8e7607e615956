package judge

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/tether-dev/tether/sandbox"
	pysdk "github.com/tether-dev/tether/sdk/python"
)

// writePythonSDK writes the importable Python SDK packages into a
// directory (a variable so a test can make it fail).
var writePythonSDK = pysdk.WriteTo

// pythonSDKBytecode is the SDK's compiled bytecode, keyed by slash path
// relative to the SDK dir (".../__pycache__/x.cpython-311.pyc"); nil when
// it could not be compiled. A variable so a benchmark can turn it off.
var pythonSDKBytecode = sync.OnceValue(compilePythonSDK)

// writePythonSDKDir writes the embedded SDK to a fresh temp dir for one
// run; the caller removes it when the run ends. The dir is named after the
// judge process, so if the judge is killed (kill -9) before that, the next
// linux sandbox runner made removes it with the sandboxes it left.
//
// Next to the sources it writes their bytecode, compiled once per judge
// process: the sides run with PYTHONDONTWRITEBYTECODE (and the dir is
// read-only inside the linux sandbox), so without it both sides of every
// run would compile the SDK again (~30 ms of CPU each). The bytecode is
// "checked-hash": Python uses it only if the hash of the .py next to it
// matches, so it can never stand for other sources.
func writePythonSDKDir() (string, error) {
	dir, err := sandbox.MkdirOwnedTemp("pysdk")
	if err != nil {
		return "", fmt.Errorf("python sdk dir: %w", err)
	}
	if err := writePythonSDK(dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("python sdk: %w", err)
	}
	if err := writeBytecode(dir, pythonSDKBytecode()); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("python sdk: %w", err)
	}
	return dir, nil
}

func writeBytecode(dir string, files map[string][]byte) error {
	for rel, data := range files {
		target := filepath.Join(dir, filepath.FromSlash(rel))
		cache := filepath.Dir(target)
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(cache, 0o755); err != nil { // whatever the umask: the sandbox uid reads it
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		if err := os.Chmod(target, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compilePythonSDK compiles the embedded SDK with the interpreter the
// runners exec for "python3" and returns the bytecode files. Any failure
// (no Python, a compile error) gives nil: the SDK then runs from source,
// as it would without this cache.
func compilePythonSDK() map[string][]byte {
	python := sandbox.HostPython()
	if python == "" {
		return nil
	}
	dir, err := os.MkdirTemp("", "tether-pysdk-compile-*")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(dir)
	if err := writePythonSDK(dir); err != nil {
		return nil
	}
	// -I -S: no user site, no .pth files; compileall needs only the stdlib.
	cmd := exec.Command(python, "-I", "-S", "-m", "compileall", "-q", "--invalidation-mode", "checked-hash", dir)
	if err := cmd.Run(); err != nil {
		return nil
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(path)) != "__pycache__" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil || len(files) == 0 {
		return nil
	}
	return files
}
