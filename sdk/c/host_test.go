package csdk

import (
	"testing"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

// build compiles testdata/<name> with the host as the judge does: the
// files WriteTo writes beside the source, then Compile.
func build(t *testing.T, name string) string {
	hosttest.Tool(t, "gcc", "apt-get install gcc")
	dir := hosttest.WorkDir(t, WriteTo, name, "main.c")
	hosttest.Build(t, dir, nil, hosttest.WithSource(Compile, "main.c")...)
	return dir
}

func TestHost(t *testing.T) {
	dir := build(t, "solution.c")
	hosttest.Run(t, hosttest.Lang{Command: Run, Dir: dir, ExceptionPrefix: "ZeroDivisionError: "})
}
