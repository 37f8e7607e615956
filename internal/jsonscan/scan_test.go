package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var (
	lax    = Syntax{MaxDepth: DefaultMaxDepth}
	strict = Syntax{MaxDepth: DefaultMaxDepth, UTF8: true}
)

func TestValid(t *testing.T) {
	for _, c := range []struct {
		in          string
		lax, strict bool
	}{
		{`0`, true, true}, {`-0`, true, true}, {`-`, false, false}, {`01`, false, false}, {`1.`, false, false},
		{`.5`, false, false}, {`1e`, false, false}, {`1e+`, false, false}, {`1E-2`, true, true}, {`-0.0e+1`, true, true},
		{`+1`, false, false}, {`1.5e3`, true, true}, {`0x1`, false, false},
		{`true`, true, true}, {`tru`, false, false}, {`nul`, false, false}, {`null `, true, true}, {`false`, true, true},
		{`truex`, false, false}, {``, false, false}, {` `, false, false},
		{`""`, true, true}, {`"`, false, false}, {`"\u12"`, false, false}, {`"\u1234"`, true, true}, {`"\uD800"`, true, true},
		{`"\x"`, false, false}, {`"\/\b\f\n\r\t\"\\"`, true, true}, {"\"\x01\"", false, false}, {"\"\x7f\"", true, true},
		{"\"é✓😀\"", true, true}, {"\"\xff\"", true, false}, {"\"\xe2\x82\"", true, false}, {"\"\xed\xa0\x80\"", true, false},
		{"\"a\tb\"", false, false}, {"\xff", false, false},
		{` [ 1 , { "a" : null } ] `, true, true}, {`[]`, true, true}, {`{}`, true, true}, {`[1,]`, false, false},
		{`{"a":1,}`, false, false}, {`{"a" 1}`, false, false}, {`{,}`, false, false}, {`[,]`, false, false},
		{`{"a":1}}`, false, false}, {`{1:2}`, false, false}, {`[1 2]`, false, false}, {`[1`, false, false},
		{`{"a":`, false, false}, {`1 2`, false, false}, {"\v1", false, false}, {"\t\r\n1\n", true, true},
		{`[[[[]]]]`, true, true}, {"[\"\xc3\xa9\",{\"\xff\":1}]", true, false},
	} {
		if got := lax.Valid([]byte(c.in)); got != c.lax {
			t.Errorf("lax.Valid(%q) = %v, want %v", c.in, got, c.lax)
		}
		if got := strict.Valid([]byte(c.in)); got != c.strict {
			t.Errorf("strict.Valid(%q) = %v, want %v", c.in, got, c.strict)
		}
		if want := json.Valid([]byte(c.in)); c.lax != want {
			t.Errorf("case %q: table says %v, json.Valid %v", c.in, c.lax, want)
		}
	}
}

// NonFinite accepts exactly the three tokens Python's json module reads.
func TestNonFinite(t *testing.T) {
	python := Syntax{MaxDepth: DefaultMaxDepth, NonFinite: true}
	for _, c := range []struct {
		in   string
		want bool
	}{
		{`NaN`, true}, {`Infinity`, true}, {`-Infinity`, true}, {`[NaN, Infinity, -Infinity, {"a": NaN}]`, true},
		{`{"type":"result","id":"x","value":NaN}`, true}, {`1`, true},
		{`nan`, false}, {`NAN`, false}, {`-NaN`, false}, {`+Infinity`, false}, {`Inf`, false}, {`-Inf`, false},
		{`NaNa`, false}, {`Infinityx`, false}, {`[NaN`, false}, {`"NaN"`, true},
	} {
		if got := python.Valid([]byte(c.in)); got != c.want {
			t.Errorf("NonFinite Valid(%q) = %v, want %v", c.in, got, c.want)
		}
		if strings.Contains(c.in, "NaN") && !strings.Contains(c.in, `"NaN"`) || strings.Contains(c.in, "Infinity") {
			if lax.Valid([]byte(c.in)) {
				t.Errorf("without NonFinite, Valid(%q) = true", c.in)
			}
		}
	}
}

// Members hands over each member once its value is checked, in order; on
// a fault the caller has the members that came whole before it.
func TestMembers(t *testing.T) {
	for _, c := range []struct {
		in      string
		members string
		ok      bool
	}{
		{`{"a":1,"b":[2,{"c":3}], "d" : "x"}`, `"a"=1 "b"=[2,{"c":3}] "d"="x" `, true},
		{`{}`, ``, true},
		{`{"a":1,"b":[2`, `"a"=1 `, false},
		{`{"a":1 "b":2}`, `"a"=1 `, false},
		{`[1]`, ``, false},
	} {
		var got strings.Builder
		end := strict.Members([]byte(c.in), 0, func(k, v []byte) { got.WriteString(string(k) + "=" + string(v) + " ") })
		if got.String() != c.members || (end >= 0) != c.ok || c.ok && end != len(c.in) {
			t.Errorf("Members(%q) saw %q, end %d; want %q, ok %v", c.in, got.String(), end, c.members, c.ok)
		}
	}
}

func TestMaxDepth(t *testing.T) {
	nest := func(n int) []byte {
		inner := "0"
		if n%2 == 1 {
			inner = "[]"
		}
		return []byte(strings.Repeat(`[{"a":`, n/2) + inner + strings.Repeat("}]", n/2))
	}
	for _, max := range []int{0, 1, 2, 3, 10} {
		s := Syntax{MaxDepth: max}
		for n := 0; n <= max+2; n++ {
			if got := s.Valid(nest(n)); got != (n <= max) {
				t.Errorf("MaxDepth %d, nesting %d (%s): Valid = %v", max, n, nest(n), got)
			}
		}
	}
	s := Syntax{MaxDepth: 2}
	if got := s.SkipValue([]byte(`[1]`), 0, 1); got != 3 {
		t.Errorf("array at depth 2 under MaxDepth 2: %d", got)
	}
	if got := s.SkipValue([]byte(`[[1]]`), 0, 1); got != -1 {
		t.Errorf("array at depth 3 under MaxDepth 2: %d", got)
	}
	for _, n := range []int{DefaultMaxDepth, DefaultMaxDepth + 1} {
		b := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if got, want := lax.Valid(b), json.Valid(b); got != want || got != (n <= DefaultMaxDepth) {
			t.Errorf("nesting %d: Valid %v, json.Valid %v", n, got, want)
		}
	}
}

func TestSkipEnds(t *testing.T) {
	for _, c := range []struct {
		in   string
		at   int
		want int
	}{
		{`1, 2`, 0, 1}, {`1, 2`, 3, 4}, {`-12.5e+3]`, 0, 8}, {`"ab\"c" : x`, 0, 7}, {`{"a":[1,{}]},9`, 0, 12},
		{`[true] `, 0, 6}, {`nullnull`, 0, 4}, {`x"a"`, 1, 4}, {`"a"`, 3, -1}, {`"a"`, 9, -1}, {` 1`, 0, -1},
		{`[1,]`, 0, -1}, {`1.e5`, 0, -1},
	} {
		if got := strict.SkipValue([]byte(c.in), c.at, 0); got != c.want {
			t.Errorf("SkipValue(%q, %d) = %d, want %d", c.in, c.at, got, c.want)
		}
	}
	if got := strict.SkipString([]byte(`12`), 0); got != -1 {
		t.Errorf("SkipString on a number = %d", got)
	}
	if got := SkipNumber([]byte(`-`), 0); got != -1 {
		t.Errorf("SkipNumber(-) = %d", got)
	}
	if got := SkipNumber([]byte(`12`), 2); got != -1 {
		t.Errorf("SkipNumber past the end = %d", got)
	}
	if got := SkipLiteral([]byte(`null`), 1, "null"); got != -1 {
		t.Errorf("SkipLiteral cut = %d", got)
	}
	for _, c := range []struct {
		in       string
		at, want int
	}{{"", 0, 0}, {" \t\r\nx", 0, 4}, {"x ", 0, 0}, {"x  ", 1, 3}, {"\v\f", 0, 0}, {"  ", 5, 5}} {
		if got := SkipSpace([]byte(c.in), c.at); got != c.want {
			t.Errorf("SkipSpace(%q, %d) = %d, want %d", c.in, c.at, got, c.want)
		}
	}
}

// FuzzValid checks both syntaxes against encoding/json (and utf8.Valid for
// the strict one), and that every span SkipValue reports is one value.
func FuzzValid(f *testing.F) {
	for _, s := range []string{
		`{"type":"call","id":"a","args":[1,2.5e3,{"x":null}]}`, `[true,false,null,-0.1E+2]`, `"\u00e9\ud83d\ude00"`,
		"\"\xe2\x82\"", "\"\xed\xa0\x80\"", `{"a":1,}`, `01`, `1.`, `[1 2]`, ` {"a" : "b" } `, `"\u12x4"`,
		"\"abcdefg\x01hij\"", `{"json\u0072pc":"2.0"}`, `[[[[[[]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := json.Valid(data)
		if got := lax.Valid(data); got != want {
			t.Fatalf("lax.Valid(%q) = %v, json.Valid %v", data, got, want)
		}
		if got, want := strict.Valid(data), want && utf8.Valid(data); got != want {
			t.Fatalf("strict.Valid(%q) = %v, want %v", data, got, want)
		}
		// Spans from the first offsets only: checking every offset of a long
		// input is quadratic and would starve the fuzzer.
		for i := 0; i < len(data) && i < 64; i++ {
			if end := lax.SkipValue(data, i, 0); end >= 0 && !json.Valid(data[i:end]) {
				t.Fatalf("SkipValue(%q, %d) = %d, span %q is not JSON", data, i, end, data[i:end])
			}
			if end := strict.SkipString(data, i); end >= 0 && (data[i] != '"' || !json.Valid(data[i:end]) || !utf8.Valid(data[i:end])) {
				t.Fatalf("SkipString(%q, %d) = %d, span %q", data, i, end, data[i:end])
			}
		}
	})
}
