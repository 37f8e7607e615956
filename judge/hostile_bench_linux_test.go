//go:build linux

package judge

import (
	"context"
	"os"
	"testing"

	"github.com/tether-dev/tether/sandbox"
)

// BenchmarkAplusbSandbox judges examples/aplusb with its reference solution
// (one whole judge.Run: SDK dir written, both sides started, relayed,
// reaped, cleaned up) through the "none" and the "linux" runner, side by
// side, with the embedded SDK as `tether judge` uses it: with its bytecode
// compiled once per judge process (sdk-bytecode) and, for comparison,
// from source only (sdk-source: both sides compile the SDK on every run).
// Both runners exec the same interpreter for "python3": the one behind the
// judge's PATH entry (a pyenv shim here), resolved once per process.
// go test -run '^$' -bench BenchmarkAplusbSandbox -benchtime 8x -benchmem ./judge
func BenchmarkAplusbSandbox(b *testing.B) {
	// As sandbox.Select makes it for `tether judge`: with prepared starts.
	linux, err := sandbox.NewLinux(&sandbox.LinuxOptions{WarmStarts: sandbox.DefaultWarmStarts})
	if err != nil {
		b.Skipf("linux sandbox unavailable: %v", err)
	}
	defer linux.Close()
	problem, err := LoadProblem("../examples/aplusb", nil)
	if err != nil {
		b.Fatal(err)
	}
	code, err := os.ReadFile("../examples/aplusb/solution.py")
	if err != nil {
		b.Fatal(err)
	}
	bytecode := pythonSDKBytecode
	defer func() { pythonSDKBytecode = bytecode }()
	for _, mode := range []struct {
		name     string
		bytecode func() map[string][]byte
	}{{"sdk-bytecode", bytecode}, {"sdk-source", func() map[string][]byte { return nil }}} {
		pythonSDKBytecode = mode.bytecode
		mode.bytecode() // compiled before the clock runs
		for _, r := range []sandbox.Runner{sandbox.NewPlain(), linux} {
			b.Run(mode.name+"/"+r.Kind(), func(b *testing.B) {
				opts := &Options{Runner: r}
				for b.Loop() {
					res, err := Run(context.Background(), problem, &Submission{Path: "solution.py", Code: code}, opts)
					if err != nil {
						b.Fatal(err)
					}
					if res.Status != Accepted {
						b.Fatalf("status %v: %s %s", res.Status, res.Details, res.Output)
					}
				}
			})
		}
	}
}
