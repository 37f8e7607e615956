package lang

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sig"
)

// everyType declares functions that take and return every type of the type
// language, and one without a result.
const everyType = `[
	{"name": "scalars", "params": [{"name": "i", "type": "int"}, {"name": "n", "type": "bigint"}, {"name": "x", "type": "float"},
		{"name": "b", "type": "bool"}, {"name": "s", "type": "string"}, {"name": "raw", "type": "bytes"}], "result": "string"},
	{"name": "nested", "params": [{"name": "l", "type": "list<map<string,optional<float>>>"}, {"name": "p", "type": "Point"},
		{"name": "v", "type": "any"}], "result": "map<string,list<bytes>>"},
	{"name": "flag", "params": [{"name": "x", "type": "float"}], "result": "bool"},
	{"name": "maybe", "params": [{"name": "o", "type": "optional<int>"}], "result": "optional<list<Point>>"},
	{"name": "reset", "params": []}]`

const everyTypeRecords = `{"Point": {"fields": [{"name": "x", "type": "int"}, {"name": "label", "type": "optional<string>"}]}}`

// Every language's template, for functions of every type, builds with the
// generated glue: its signatures are the ones the glue checks for.
func TestDeclaredTemplatesBuildForEveryType(t *testing.T) {
	d, err := sig.Parse(json.RawMessage(everyType), json.RawMessage(everyTypeRecords))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := sig.Templates(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]string{"cpp": "g++", "c": "gcc", "python": "python3", "javascript": "node", "java": "javac", "rust": "rustc", "go": "go"}
	for _, tm := range ts {
		t.Run(tm.Language, func(t *testing.T) {
			testenv.Toolchain(t, tools[tm.Language])
			l := lookup(t, tm.Language)
			b := testBuilder(t, nil)
			lim := l.Effective(CompileLimits{})
			lim.TimeLimitMs, lim.CPUTimeLimitMs = 180000, 180000 // a loaded machine; not about the limit
			bd, err := b.Build(context.Background(), Request{Language: l, Source: tm.Text, FileName: tm.File, Functions: d, Limits: lim, MemoryMB: 256})
			var ce *CompileError
			if errors.As(err, &ce) {
				t.Fatalf("%s:\n%s\ndoes not build: %v", tm.File, tm.Text, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			bd.Close()
		})
	}
}
