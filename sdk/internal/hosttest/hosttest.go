// Package hosttest drives a language's solution host over pipes, frame by
// frame, and checks that it behaves as the Python host does
// (docs/protocol/judge.md): the same answers, codes and codec rules.
//
// Each language's test builds a solution (its sources in the language's
// testdata) exporting these functions, then calls Run:
//
//	add(a, b int64) int64          a + b
//	echo(v any) any                v unchanged (the language's generic value)
//	fail()                         throws the language's own exception
//	shout(s string) int64          prints "out:"+s to stdout and "err:"+s to stderr, returns len(s)
//	twice(x int64) int64           capability "double"(x) + 1
//	capcode(name string) string    calls capability name(); its error's wire code, or "ok"
package hosttest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// RequireEnv makes a missing toolchain a failure instead of a skip (CI).
const RequireEnv = "TETHER_REQUIRE_LANGUAGES"

// Tool is the path of a toolchain program; without it the test is
// skipped, or fails under TETHER_REQUIRE_LANGUAGES=1.
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		err = fmt.Errorf("no %s on PATH (%s): %w", name, install, err)
	}
	testenv.Require(t, RequireEnv, err)
	return p
}

// Build runs argv in dir and fails the test with its output if it fails.
func Build(t testing.TB, dir string, env []string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// Lang describes what differs between languages in the shared checks.
type Lang struct {
	// Command starts the host (in Dir).
	Command []string
	Dir     string
	// ExceptionPrefix starts the message of fail()'s Exception answer: the
	// exception's class name, "std::runtime_error: " for example.
	ExceptionPrefix string
	// Typed: arguments that do not fit the parameters' types (or their
	// number) are answered Rejected.
	Typed bool
	// LooseNumbers: the language has one number type, so a float with an
	// integral value comes back as an integer (JavaScript).
	LooseNumbers bool
}

// Run runs every shared check against the host l starts.
func Run(t *testing.T, l Lang) {
	t.Run("call", func(t *testing.T) { testCall(t, l) })
	t.Run("not-found", func(t *testing.T) { testNotFound(t, l) })
	t.Run("exception", func(t *testing.T) { testException(t, l) })
	t.Run("prints", func(t *testing.T) { testPrints(t, l) })
	t.Run("capability", func(t *testing.T) { testCapability(t, l) })
	t.Run("hostile", func(t *testing.T) { testHostile(t, l) })
	t.Run("vectors", func(t *testing.T) { testVectors(t, l) })
	t.Run("eof", func(t *testing.T) { testEOF(t, l) })
}
