package jssdk

import (
	"fmt"
	"testing"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

// setup writes the host and testdata/name as source into a fresh work dir.
func setup(t *testing.T, name, source string) hosttest.Lang {
	hosttest.Tool(t, "node", "apt-get install nodejs")
	dir := hosttest.WorkDir(t, Files.WriteTo, name, source)
	return hosttest.Lang{Command: hosttest.WithSource(Run, source), Dir: dir}
}

func TestHost(t *testing.T) {
	l := setup(t, "solution.js", "main.js")
	l.ExceptionPrefix, l.LooseNumbers = "TypeError: ", true
	hosttest.Run(t, l)
}

func TestModule(t *testing.T) {
	h := hosttest.Start(t, setup(t, "solution.mjs", "main.mjs"))
	h.Call("m1", "add", 2, 3)
	h.Expect("m1", "result", "")
	h.Call("m2", "mul", 2, 3)
	if f := h.Expect("m2", "result", ""); fmt.Sprint(f["value"]) != "6" {
		t.Fatalf("mul(2, 3) = %v", f["value"])
	}
	h.Wait()
}
