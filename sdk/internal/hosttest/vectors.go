package hosttest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tether-dev/tether/codec"
)

type vector struct {
	Name        string  `json:"name"`
	Wire        *string `json:"wire"`
	WireHex     *string `json:"wire_hex"`
	DecodeError *string `json:"decode_error"`
}

// testVectors sends every decodable input of testdata/codec/vectors.json
// through echo: the answer must be what the Go codec makes of the same
// frame (a result whose value is the canonical encoding, or Rejected), and
// a frame that is not JSON at all gets no answer, as from the Python host.
func testVectors(t *testing.T, l Lang) {
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "codec", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Cases []vector }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	h := Start(t, l)
	checked := 0
	for i, c := range doc.Cases {
		var wire []byte
		switch {
		case c.Wire != nil:
			wire = []byte(*c.Wire)
		case c.WireHex != nil:
			if wire, err = hex.DecodeString(*c.WireHex); err != nil {
				t.Fatal(err)
			}
		default:
			continue // an encode-only case
		}
		if len(bytes.TrimSpace(wire)) == 0 || bytes.ContainsAny(wire, "\n\r") {
			continue // not a value inside args / not one line
		}
		id := fmt.Sprintf("v%d", i)
		line := append([]byte(`{"type":"call","id":"`+id+`","fn":"echo","args":[`), wire...)
		line = append(line, "]}"...)
		h.Send(string(line))
		v, decodeErr := codec.Unmarshal(line)
		var syntax *codec.SyntaxError
		switch {
		case decodeErr == nil:
			want, err := codec.Marshal(v.(map[string]any)["args"].([]any)[0])
			if err != nil {
				t.Fatal(err)
			}
			got := h.NextLine()
			wantLine := `{"type":"result","id":"` + id + `","value":` + string(want) + `}`
			if string(got) != wantLine && !(l.LooseNumbers && sameLoosely(got, want)) {
				t.Errorf("vector %q: host answered\n%s\nwant\n%s", c.Name, clip(got), clip([]byte(wantLine)))
			}
		case asSyntax(decodeErr, &syntax):
			// Not JSON: the host must ignore it; the next answer is the sentinel's.
			h.Call(id+"s", "add", 0, 0)
			h.Expect(id+"s", "result", "")
		default:
			f := h.Expect(id, "error", "Rejected")
			if c.DecodeError != nil && strings.Contains(decodeErr.Error(), *c.DecodeError) &&
				!strings.Contains(fmt.Sprint(f["message"]), *c.DecodeError) {
				t.Errorf("vector %q: message %q, want it to contain %q", c.Name, f["message"], *c.DecodeError)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d vectors checked", checked)
	}
}

func asSyntax(err error, target **codec.SyntaxError) bool { return errors.As(err, target) }

// sameLoosely: got is a result whose value equals want when integers and
// floats of the same value count as equal.
func sameLoosely(got, want []byte) bool {
	f, err := codec.Unmarshal(got)
	if err != nil {
		return false
	}
	m, ok := f.(map[string]any)
	if !ok {
		return false
	}
	w, err := codec.Unmarshal(want)
	if err != nil {
		return false
	}
	return looseEqual(m["value"], w)
}

func looseEqual(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !looseEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if !looseEqual(v, b[k]) {
				return false
			}
		}
		return true
	case []byte:
		b, ok := b.([]byte)
		return ok && bytes.Equal(a, b)
	}
	return a == b
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		return f, true
	}
	return 0, false
}
