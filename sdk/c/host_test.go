package csdk

import (
	"testing"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

func TestHost(t *testing.T) {
	hosttest.Tool(t, "gcc", "apt-get install gcc")
	dir := hosttest.Compiled(t, Files.WriteTo, "solution.c", "main.c", Compile)
	hosttest.Run(t, hosttest.Lang{Command: Run, Dir: dir, ExceptionPrefix: "ZeroDivisionError: "})
}
