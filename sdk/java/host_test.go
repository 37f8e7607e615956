package javasdk

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

func expand(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.NewReplacer("{source}", "Solution.java", "{memory_mb}", "256").Replace(a)
	}
	return out
}

// The two ways the judge builds a solution: with a build cache, the host's
// classes alone, then the solution's beside them (without the host's
// source); without one, both at once.
func TestHost(t *testing.T) {
	hosttest.Tool(t, "javac", "apt-get install default-jdk-headless")
	hosttest.Tool(t, "java", "apt-get install default-jdk-headless")
	t.Run("host classes first", func(t *testing.T) {
		t.Parallel()
		dir := hosttest.WorkDir(t, Files.WriteTo, "Solution.java", "Solution.java")
		hosttest.Build(t, dir, nil, expand(CompileHost)...)
		if err := os.Remove(filepath.Join(dir, HostUnit)); err != nil {
			t.Fatal(err)
		}
		hosttest.Build(t, dir, nil, expand(CompileSolution)...)
		testHost(t, dir)
	})
	t.Run("together", func(t *testing.T) {
		t.Parallel()
		dir := hosttest.WorkDir(t, Files.WriteTo, "Solution.java", "Solution.java")
		hosttest.Build(t, dir, nil, expand(Compile)...)
		testHost(t, dir)
	})
}

func testHost(t *testing.T, dir string) {
	l := hosttest.Lang{Command: expand(Run), Dir: dir, ExceptionPrefix: "java.lang.ArithmeticException: ", Typed: true}
	hosttest.Run(t, l)
	t.Run("types", func(t *testing.T) {
		h := hosttest.Start(t, l)
		h.Send(`{"type":"call","id":"s1","fn":"sum","args":[[1,2],[3],{"a":4.5}]}`)
		if f := h.Expect("s1", "result", ""); f["value"].(interface{ String() string }).String() != "10" {
			t.Fatalf("sum = %v, want 10", f["value"])
		}
		h.Send(`{"type":"call","id":"s2","fn":"sum","args":[[1,3000000000],[],{}]}`)
		if f := h.Expect("s2", "error", "Rejected"); !strings.HasPrefix(f["message"].(string), "args[0][1]: integer 3000000000 is out of range") {
			t.Fatalf("out of range int: %v", f["message"])
		}
		h.Wait()
	})
}
