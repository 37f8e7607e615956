package gosdk

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

func TestHost(t *testing.T) {
	gobin := hosttest.Tool(t, "go", "install the Go toolchain the project builds with")
	dir := t.TempDir()
	if err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "main.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	// Offline: no proxy, no module cache of ours (a fresh GOPATH and GOMODCACHE).
	env := append([]string{"GOPATH=" + t.TempDir(), "GOMODCACHE=" + t.TempDir()}, Env...)
	hosttest.Build(t, dir, env, append([]string{gobin}, Compile[1:]...)...)
	hosttest.Run(t, hosttest.Lang{Command: Run, Dir: dir, ExceptionPrefix: "panic: runtime error: index out of range"})
}

// Every package of this module that sdk/go/solution needs is embedded: a
// new import would otherwise break every Go submission's build.
func TestEmbedsEveryDependency(t *testing.T) {
	gobin := hosttest.Tool(t, "go", "install the Go toolchain the project builds with")
	out, err := exec.Command(gobin, "list", "-deps", "../../sdk/go/solution").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, Module+"/")
		if !ok {
			continue
		}
		if _, err := files.Open(SDKDir + "/" + rel); err != nil {
			t.Errorf("%s is imported by the Go SDK but not embedded (gosources.go)", pkg)
		}
	}
}
