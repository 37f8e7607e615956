package sig

import (
	"fmt"
	"strings"
	"testing"
)

// lineOf is the 1-based line of glue's first line holding s.
func lineOf(t *testing.T, glue, s string) int {
	t.Helper()
	for i, l := range strings.Split(glue, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("the glue has no %q:\n%s", s, glue)
	return 0
}

// A Go source of declared functions gets the glue file; one with its own
// main (solution.Register, the explicit form) is left as it is.
func TestGoGlueOnlyForSourcesWithoutMain(t *testing.T) {
	d := mustParse(t, `[{"name": "add", "params": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}], "result": "int"}]`, "")
	g := GlueFor("go", d, "main.go", []byte("package main\n\nfunc add(a, b int64) int64 { return a + b }\n"))
	if g == nil || len(g.Files) != 1 || g.Files[0].Name != GoGlueFile || g.Explain == nil {
		t.Fatalf("glue %+v: want %s and its explanation", g, GoGlueFile)
	}
	if want := "func add(a int64, b int64) int64"; len(g.Expected) != 1 || g.Expected[0] != want {
		t.Errorf("expected %q, want %q", g.Expected, want)
	}
	explicit := "package main\n\nimport \"github.com/tether-dev/tether/sdk/go/solution\"\n\nfunc main() {\n\tsolution.Serve()\n}\n"
	if g := GlueFor("go", d, "main.go", []byte(explicit)); g != nil {
		t.Errorf("a source with its own main got glue:\n%s", g.Files[0].Data)
	}
	// A method named main is not the program's main.
	if g := GlueFor("go", d, "main.go", []byte("package main\n\ntype T int\n\nfunc (T) main() {}\n")); g == nil {
		t.Error("a method main counts as the program's")
	}
}

// The Go compiler's messages about the glue are replaced by what the
// submission must change, once per function or record; messages about
// the submission's own lines stay as they are.
func TestGoGlueExplainsTheCompilersMessages(t *testing.T) {
	d := mustParse(t, `[{"name": "add", "params": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}], "result": "int"},
		{"name": "near", "params": [{"name": "p", "type": "Point"}], "result": "Point"}]`, pointTypes)
	// The submission declares Point itself (without the field label).
	g := GlueFor("go", d, "main.go", []byte("package main\n\ntype Point struct{ X, Y int64 }\n"))
	glue := string(g.Files[0].Data)
	if strings.Contains(glue, "type Point struct") {
		t.Errorf("the glue declares Point, which the source declares:\n%s", glue)
	}
	add := lineOf(t, glue, "var tether_fn_0 ")
	near := lineOf(t, glue, "var tether_fn_1 ")
	label := lineOf(t, glue, "tether_r.Label, tether_err =")
	messages := strings.Join([]string{
		"# solution",
		"./main.go:3:6: declared and not used: q",
		fmt.Sprintf("./%s:%d:54: cannot use add (value of type func(a int, b int) int) as func(int64, int64) int64 value in variable declaration", GoGlueFile, add),
		fmt.Sprintf("./%s:%d:40: undefined: near", GoGlueFile, near),
		fmt.Sprintf("./%s:%d:12: tether_r.Label undefined (type Point has no field or method Label)", GoGlueFile, label),
		fmt.Sprintf("./%s:%d:12: tether_x.Label undefined (type Point has no field or method Label)", GoGlueFile, label+1),
	}, "\n")
	got := g.Explain(messages)
	want := "# solution\n./main.go:3:6: declared and not used: q\n" +
		"main.go: add is func(a int, b int) int; the problem declares:\n    func add(a int64, b int64) int64\n" +
		"main.go: near is missing; the problem declares:\n    func near(p Point) Point\n" +
		"main.go: type Point does not have the declared fields; the problem declares:\n    type Point struct {\n" +
		"    \tX int64 `json:\"x\"`\n    \tY int64 `json:\"y\"`\n    \tLabel *string `json:\"label\"`\n    }"
	if got != want {
		t.Errorf("explained:\n%s\nwant:\n%s", got, want)
	}

	other := "found packages solution (main.go) and main (" + GoGlueFile + ") in /tmp/build"
	if got, want := g.Explain(other), "main.go: package solution: a Go solution is package main"; got != want {
		t.Errorf("explained %q as %q, want %q", other, got, want)
	}
}
