package jsonrpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseLine checks the message parser against encoding/json: a line is
// "not JSON" exactly when json.Valid says so, every span it reports is
// itself valid JSON, and an envelope it accepts decodes with encoding/json
// to the same method and a params member of the right shape.
func FuzzParseLine(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
		`{"jsonrpc":"2.0","result":19,"id":1}`,
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`,
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"foo":"boo"}]`,
		`[]`, `[1,2,3]`, `5`, `null`, `{"jsonrpc":"2.0"}`, `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
		`{"json\u0072pc":"2.0","method":"x","id":1.5e3}`, `"\ud800"`, `-0.0e+1`, `01`, `1.`, `[1,]`, `{"a":1,}`,
	}
	if data, err := os.ReadFile(filepath.Join("..", "testdata", "jsonrpc", "spec-examples.txt")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "-->") {
				seeds = append(seeds, strings.TrimPrefix(line, "-->"))
			}
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		kind, envs := parseLine(line, nil)
		if valid := json.Valid(line); valid != (kind != lineNotJSON) {
			t.Fatalf("parseLine says kind %d, json.Valid says %v for %q", kind, valid, line)
		}
		if kind == lineEmptyBatch && len(envs) != 0 {
			t.Fatalf("empty batch with %d envelopes", len(envs))
		}
		for _, env := range envs {
			for _, span := range [][]byte{env.id, env.method, env.params, env.result, env.errObj} {
				if span != nil && !json.Valid(span) {
					t.Fatalf("span %q of %q is not JSON", span, line)
				}
			}
			if env.invalid != "" || !env.hasMethod {
				continue
			}
			var std struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(env.method, &std.Method); err != nil {
				t.Fatalf("accepted method %q does not decode: %v", env.method, err)
			}
			if env.params != nil && env.params[0] != '[' && env.params[0] != '{' {
				t.Fatalf("accepted params %q", env.params)
			}
			if env.hasID && !env.idValid {
				t.Fatalf("accepted id %q", env.id)
			}
		}
	})
}

func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`0`, `-0`, `01`, `1.`, `.5`, `1e`, `1e+`, `1E-2`, `"\u12"`, `"\u1234"`, "\"\x01\"", `"\x"`, `tru`, `true `,
		` [ 1 , { "a" : null } ] `, `{"a" 1}`, `{,}`, `[,]`, `{"a":1}}`, `nul`, `"`, ``, ` `, `[[[[]]]]`,
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	} {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.40q) = %v, json.Valid = %v", s, got, want)
		}
	}
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if validJSON([]byte(deep)) {
		t.Error("nesting past maxDepth accepted")
	}
}
