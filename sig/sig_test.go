package sig

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/tether-dev/tether/codec"
)

func mustParse(t *testing.T, functions, types string) *Declaration {
	t.Helper()
	d, err := Parse(json.RawMessage(functions), json.RawMessage(types))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

const pointTypes = `{"Point": {"description": "a point", "fields": [
	{"name": "x", "type": "int"}, {"name": "y", "type": "int"}, {"name": "label", "type": "optional<string>"}]}}`

func TestParseTypeCanonical(t *testing.T) {
	records := map[string]bool{"Point": true}
	for in, want := range map[string]string{
		"int":                                "int",
		" list< int >":                       "list<int>",
		"map<string, list<optional<Point>>>": "map<string,list<optional<Point>>>",
		"optional<bytes>":                    "optional<bytes>",
		"any":                                "any",
		"bigint":                             "bigint",
	} {
		ty, err := ParseType(in, records)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := ty.String(); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
		again, err := ParseType(ty.String(), records)
		if err != nil || again.String() != want {
			t.Errorf("%q does not parse back: %v", want, err)
		}
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	for _, c := range []struct{ functions, types, field, msg string }{
		{`[{"name":"add","params":[{"name":"a","type":"int"},{"name":"b","type":"integr"}],"result":"int"}]`, ``,
			"functions[0].params[1].type", `unknown type "integr" (known: int, bigint, float, bool, string, bytes, list<T>, map<string,T>, optional<T>, any)`},
		{`[{"name":"f","params":[],"result":"list<int"}]`, ``, "functions[0].result", `want ">"`},
		{`[{"name":"f","params":[],"result":"map<int,int>"}]`, ``, "functions[0].result", "map's keys are strings"},
		{`[{"name":"f","params":[],"result":"optional<optional<int>>"}]`, ``, "functions[0].result", "cannot be told"},
		{`[{"name":"f","params":[]},{"name":"f","params":[]}]`, ``, "functions[1].name", "declared twice"},
		{`[{"name":"class","params":[]}]`, ``, "functions[0].name", "keyword"},
		{`[{"name":"2x","params":[]}]`, ``, "functions[0].name", "letters, digits"},
		{`[{"name":"f","params":[{"name":"a","type":"int"},{"name":"a","type":"int"}]}]`, ``, "functions[0].params[1].name", "used twice"},
		{`[{"name":"f","params":[{"name":"a"}]}]`, ``, "functions[0].params[0].type", "missing"},
		{`[{"name":"f","params":[{"name":"a","type":7}]}]`, ``, "functions", `params.type: want a string, got number`},
		{`[{"name":"f","params":[],"description":"two\nlines"}]`, ``, "functions[0].description", "one line"},
		{`[{"name":"f","params":[{"name":"p","type":"Pointe"}]}]`, pointTypes, "functions[0].params[0].type", "or a declared type: Point"},
		{`[{"name":"f","params":[]}]`, `{"Q":{"fields":[{"name":"z","type":"flot"}]}}`, "types.Q.fields[0].type", `unknown type "flot"`},
		{`[{"name":"f","params":[]}]`, `{"int":{"fields":[]}}`, "types.int", "built-in"},
		{`[]`, ``, "functions", "at least one"},
		{`{"name":"f"}`, ``, "functions", "want an array"},
	} {
		_, err := Parse(json.RawMessage(c.functions), json.RawMessage(c.types))
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want a FieldError", c.functions, err)
			continue
		}
		if fe.Field != c.field || !strings.Contains(fe.Err.Error(), c.msg) {
			t.Errorf("%s %s:\ngot  %s\nwant %s: ...%s...", c.functions, c.types, err, c.field, c.msg)
		}
	}
}

func TestParseNothingDeclared(t *testing.T) {
	d, err := Parse(nil, json.RawMessage("null"))
	if d != nil || err != nil {
		t.Fatalf("got %v, %v; want nil, nil", d, err)
	}
	if d.Function("add") != nil || d.Env() != "" {
		t.Fatal("a nil declaration declares something")
	}
}

func decoded(t *testing.T, wire string) any {
	t.Helper()
	v, err := codec.Unmarshal([]byte(wire))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCheckLimits walks the type language's edges: integers at ±2^63,
// big integers beyond, empty and nested lists and maps, every byte value,
// optional absent and present, records.
func TestCheckLimits(t *testing.T) {
	d := mustParse(t, `[{"name":"f","params":[]}]`, pointTypes)
	allBytes := make([]byte, 256)
	for i := range allBytes {
		allBytes[i] = byte(i)
	}
	bytesWire, _ := codec.Marshal(allBytes)
	for _, c := range []struct {
		typ, wire string
		ok        bool
		msg       string
	}{
		{"int", "9223372036854775807", true, ""},
		{"int", "-9223372036854775808", true, ""},
		{"int", "9223372036854775808", false, "want an integer, got an integer out of the 64-bit range"},
		{"int", "-9223372036854775809", false, "out of the 64-bit range"},
		{"int", "1.5", false, "want an integer, got a float"},
		{"int", "true", false, "want an integer, got a boolean"},
		{"bigint", "123456789012345678901234567890", true, ""},
		{"bigint", "-9223372036854775809", true, ""},
		{"bigint", "1", true, ""},
		{"bigint", `"1"`, false, "want an integer, got a string"},
		{"float", "1.5", true, ""},
		{"float", "3", true, ""},
		{"bool", "false", true, ""},
		{"bool", "0", false, "want a boolean, got an integer"},
		{"string", `""`, true, ""},
		{"bytes", string(bytesWire), true, ""},
		{"bytes", `"AAE="`, false, "want bytes, got a string"},
		{"list<int>", "[]", true, ""},
		{"list<list<int>>", "[[],[1,2],[]]", true, ""},
		{"list<list<int>>", `[[1],[2,"x"]]`, false, `[1][1]: want an integer, got a string`},
		{"map<string,int>", "{}", true, ""},
		{"map<string,map<string,bool>>", `{"a":{"b":true},"c":{}}`, true, ""},
		{"map<string,int>", `{"a":1,"b":null}`, false, `["b"]: want an integer, got null`},
		{"optional<int>", "null", true, ""},
		{"optional<int>", "7", true, ""},
		{"optional<int>", `"7"`, false, "want an integer or null, got a string"},
		{"Point", `{"x":1,"y":2}`, true, ""},
		{"Point", `{"x":1,"y":2,"label":"p"}`, true, ""},
		{"Point", `{"x":1}`, false, ".y: want an integer, got nothing (the field is missing)"},
		{"Point", `{"x":1,"y":2,"z":3}`, false, ".z: want only the fields of Point"},
		{"Point", `[1,2]`, false, "want a Point record, got a list"},
		{"list<Point>", `[{"x":1,"y":"2"}]`, false, "[0].y: want an integer, got a string"},
		{"any", `{"anything":[1,"x",null]}`, true, ""},
	} {
		ty, err := ParseType(c.typ, map[string]bool{"Point": true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Check(ty, decoded(t, c.wire))
		if c.ok && err != nil {
			t.Errorf("%s %s: %v", c.typ, c.wire, err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("%s %s: got %v, want ...%s...", c.typ, c.wire, err, c.msg)
		}
	}
}

func TestCheckArgsConvertsIntsToFloatsAndNamesTheParameter(t *testing.T) {
	d := mustParse(t, `[{"name":"scale","params":[{"name":"xs","type":"list<float>"},{"name":"k","type":"float"}],"result":"list<float>"}]`, ``)
	args, err := d.CheckArgs("scale", []any{[]int{1, 2}, 3})
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := codec.Marshal(args)
	if string(wire) != "[[1.0,2.0],3.0]" {
		t.Errorf("args go out as %s, want [[1.0,2.0],3.0]", wire)
	}
	_, err = d.CheckArgs("scale", []any{[]any{1.0}, "3"})
	if err == nil || err.Error() != "scale: parameter k (float): want a float, got a string" {
		t.Errorf("got %v", err)
	}
	if _, err := d.CheckArgs("scale", []any{nil}); err == nil || !strings.Contains(err.Error(), "takes 2 arguments") {
		t.Errorf("got %v", err)
	}
	if _, err := d.CheckArgs("sacle", nil); err == nil || !strings.Contains(err.Error(), "declared: scale") {
		t.Errorf("got %v", err)
	}
}

func TestCheckResultMessage(t *testing.T) {
	d := mustParse(t, `[{"name":"add","params":[{"name":"a","type":"int"},{"name":"b","type":"int"}],"result":"int"},
		{"name":"reset","params":[]}]`, ``)
	_, err := d.CheckResult("add", "3")
	if err == nil || err.Error() != "add returned a string, expected an integer" {
		t.Errorf("got %v", err)
	}
	_, err = d.CheckResult("add", new(big.Int).Lsh(big.NewInt(1), 70))
	if err == nil || err.Error() != "add returned an integer out of the 64-bit range, expected an integer" {
		t.Errorf("got %v", err)
	}
	if v, err := d.CheckResult("add", int64(3)); err != nil || v != int64(3) {
		t.Errorf("got %v, %v", v, err)
	}
	if _, err := d.CheckResult("reset", int64(1)); err == nil || err.Error() != "reset returned an integer, expected nothing (null)" {
		t.Errorf("got %v", err)
	}
}

func TestEnvIsTheTreeForm(t *testing.T) {
	d := mustParse(t, `[{"name":"f","params":[{"name":"p","type":"map<string,list<Point>>"}],"result":"optional<int>"},
		{"name":"g","params":[]}]`, pointTypes)
	want := `{"functions":[{"name":"f","params":[{"name":"p","type":{"map":{"list":{"record":"Point"}}}}],"result":{"optional":"int"}},` +
		`{"name":"g","params":[],"result":null}],` +
		`"types":{"Point":{"fields":[{"name":"x","type":"int"},{"name":"y","type":"int"},{"name":"label","type":{"optional":"string"}}]}}}`
	if got := d.Env(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestSignatures(t *testing.T) {
	d := mustParse(t, `[{"name":"add","params":[{"name":"a","type":"int"},{"name":"b","type":"int"}],"result":"int"},
		{"name":"f","params":[{"name":"m","type":"map<string,list<optional<bytes>>>"},{"name":"n","type":"bigint"}]}]`, ``)
	for got, want := range map[string]string{
		CppSignature(d.Functions[0]):    "long long add(long long a, long long b)",
		CppSignature(d.Functions[1]):    "void f(std::map<std::string, std::vector<std::optional<tether::bytes>>> m, tether::json n)",
		PythonSignature(d.Functions[0]): "def add(a: int, b: int) -> int",
		PythonSignature(d.Functions[1]): "def f(m: Dict[str, List[Optional[bytes]]], n: int) -> None",
		d.Functions[1].Signature():      "f(m: map<string,list<optional<bytes>>>, n: bigint)",
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

func TestGlueLeavesExplicitExportsAlone(t *testing.T) {
	d := mustParse(t, `[{"name":"add","params":[{"name":"a","type":"int"},{"name":"b","type":"int"}],"result":"int"}]`, ``)
	if g := GlueFor("cpp", d, "main.cpp", []byte("long long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n")); g != nil {
		t.Error("a source with TETHER_EXPORT got glue")
	}
	if g := GlueFor("cpp", nil, "main.cpp", []byte("int x;")); g != nil {
		t.Error("no declaration, yet glue")
	}
	g := GlueFor("cpp", d, "main.cpp", []byte("long long add(long long a, long long b) { return a + b; }"))
	if g == nil || !strings.Contains(string(g.Source), "TETHER_EXPORT(add);") || !strings.Contains(string(g.Source), `#line 1 "main.cpp"`) {
		t.Fatalf("glue:\n%s", g.Source)
	}
}

func TestParseEnvRoundTrips(t *testing.T) {
	d := mustParse(t, `[{"name":"f","params":[{"name":"p","type":"map<string,list<Point>>"},{"name":"q","type":"optional<bytes>"}],"result":"bigint"},
		{"name":"g","params":[]}]`, pointTypes)
	back, err := ParseEnv(d.Env())
	if err != nil {
		t.Fatal(err)
	}
	if back.Env() != d.Env() {
		t.Errorf("got  %s\nwant %s", back.Env(), d.Env())
	}
	if _, err := ParseEnv(`{"functions":[{"name":"f","params":[{"name":"a","type":{"set":"int"}}]}]}`); err == nil {
		t.Error("an unknown tree node was accepted")
	}
}

func TestCheckConvertsInsideMapsAndRecordsWithoutChangingTheInput(t *testing.T) {
	d := mustParse(t, `[{"name":"f","params":[{"name":"m","type":"map<string,float>"},{"name":"r","type":"R"}]}]`,
		`{"R":{"fields":[{"name":"w","type":"float"},{"name":"n","type":"int"}]}}`)
	m := map[string]any{"a": int64(1), "b": 2.5}
	r := map[string]any{"w": int64(3), "n": int64(4)}
	args, err := d.CheckArgs("f", []any{m, r})
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := codec.Marshal(args)
	if string(wire) != `[{"a":1.0,"b":2.5},{"n":4,"w":3.0}]` {
		t.Errorf("args go out as %s", wire)
	}
	if _, ok := m["a"].(int64); !ok {
		t.Error("the caller's map was changed")
	}
	if _, ok := r["w"].(int64); !ok {
		t.Error("the caller's record was changed")
	}
}
