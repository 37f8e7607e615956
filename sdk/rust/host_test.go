package rustsdk

import (
	"debug/elf"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

// The two ways the judge builds a solution: with a build cache, the host
// alone as a library, then the solution against it; without one, both as
// one crate.
var builds = map[string][][]string{
	"library":   {CompileHost, CompileSolution},
	"one crate": {Compile},
}

func TestHost(t *testing.T) {
	hosttest.Tool(t, "rustc", "apt-get install rustc")
	for name, steps := range builds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := hosttest.WorkDir(t, Files.WriteTo, "solution.rs", Source)
			for _, argv := range steps {
				hosttest.Build(t, dir, nil, argv...)
			}
			testHost(t, dir)
		})
	}
}

func testHost(t *testing.T, dir string) {
	l := hosttest.Lang{Command: Run, Dir: dir, ExceptionPrefix: "DivisionByZero: ", Typed: true}
	hosttest.Run(t, l)
	// The build cache hashes the executable on every hit: the standard
	// library's debug info (90% of it) is not kept.
	t.Run("no debug info", func(t *testing.T) {
		f, err := elf.Open(filepath.Join(dir, "main"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if s := f.Section(".debug_info"); s != nil {
			t.Fatalf("the executable has a .debug_info section of %d bytes, want none (Compile strips it)", s.Size)
		}
	})
	t.Run("panic", func(t *testing.T) {
		h := hosttest.Start(t, l)
		h.Call("b1", "boom", []any{1, 2})
		if f := h.Expect("b1", "error", "Exception"); !strings.HasPrefix(f["message"].(string), "panic: index out of bounds") {
			t.Fatalf("panic answer: %v", f["message"])
		}
		h.Call("b2", "add", 1, 2)
		h.Expect("b2", "result", "")
		h.Wait()
	})
}
