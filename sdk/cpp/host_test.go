package cppsdk

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

// build compiles testdata/<name> with the host as the judge does: the
// files WriteTo writes beside the source, then Compile.
func build(t *testing.T, name string) string {
	hosttest.Tool(t, "g++", "apt-get install g++")
	dir := t.TempDir()
	if err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.cpp"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	argv := make([]string, len(Compile))
	for i, a := range Compile {
		if a == "{source}" {
			a = "main.cpp"
		}
		argv[i] = a
	}
	hosttest.Build(t, dir, nil, argv...)
	return dir
}

func TestHost(t *testing.T) {
	dir := build(t, "solution.cpp")
	hosttest.Run(t, hosttest.Lang{Command: Run, Dir: dir, ExceptionPrefix: "std::out_of_range: ", Typed: true})
}
