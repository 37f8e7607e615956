package javasdk

import (
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

func build(t *testing.T) string {
	hosttest.Tool(t, "javac", "apt-get install default-jdk-headless")
	hosttest.Tool(t, "java", "apt-get install default-jdk-headless")
	dir := hosttest.WorkDir(t, Files.WriteTo, "Solution.java", "Solution.java")
	hosttest.Build(t, dir, nil, expand(Compile)...)
	return dir
}

func TestHost(t *testing.T) {
	dir := build(t)
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
