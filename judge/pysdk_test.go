package judge

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPythonSDKWritten(t *testing.T) {
	dir, err := writePythonSDKDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, pkg := range []string{"tether_sdk", "noj_evaluator_sdk", "noj_solution_sdk"} {
		if _, err := os.Stat(filepath.Join(dir, pkg, "__init__.py")); err != nil {
			t.Errorf("%s not written: %v", pkg, err)
		}
	}
}
