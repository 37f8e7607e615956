package codec

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

const vectorsPath = "../testdata/codec/vectors.json"

type vectorCase struct {
	Name        string          `json:"name"`
	Value       json.RawMessage `json:"value"`
	Wire        *string         `json:"wire"`
	WireHex     *string         `json:"wire_hex"`
	DecodesTo   json.RawMessage `json:"decodes_to"`
	DecodeError *string         `json:"decode_error"`
	EncodeError *string         `json:"encode_error"`
}

func (c vectorCase) input(t *testing.T) []byte {
	t.Helper()
	switch {
	case c.Wire != nil && c.WireHex != nil:
		t.Fatal("case has both wire and wire_hex")
	case c.Wire != nil:
		return []byte(*c.Wire)
	case c.WireHex != nil:
		b, err := hex.DecodeString(*c.WireHex)
		if err != nil {
			t.Fatalf("wire_hex: %v", err)
		}
		return b
	}
	t.Fatal("case has neither wire nor wire_hex")
	return nil
}

func loadVectors(t testing.TB) []vectorCase {
	t.Helper()
	data, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []vectorCase }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%s: %v", vectorsPath, err)
	}
	return file.Cases
}

func TestVectors(t *testing.T) {
	cases := loadVectors(t)
	if len(cases) < 40 {
		t.Fatalf("only %d vector cases", len(cases))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			switch {
			case c.Value != nil && c.Wire != nil:
				runCanonical(t, c)
			case c.DecodesTo != nil:
				runDecodesTo(t, c)
			case c.DecodeError != nil:
				runDecodeError(t, c)
			case c.EncodeError != nil:
				runEncodeError(t, c)
			default:
				t.Fatal("case matches no shape of testdata/codec/README.md")
			}
		})
	}
}

func mustTyped(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	v, err := typedToGo(raw)
	if err != nil {
		t.Fatalf("TYPED %s: %v", raw, err)
	}
	return v
}

func runCanonical(t *testing.T, c vectorCase) {
	want := mustTyped(t, c.Value)
	got, err := Marshal(want)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if string(got) != *c.Wire {
		t.Errorf("Marshal = %q, want %q", got, *c.Wire)
	}
	back, err := Unmarshal([]byte(*c.Wire))
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !sameValue(back, want) {
		t.Errorf("Unmarshal = %#v, want %#v", back, want)
	}
}

func runDecodesTo(t *testing.T, c vectorCase) {
	want := mustTyped(t, c.DecodesTo)
	got, err := Unmarshal(c.input(t))
	if err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !sameValue(got, want) {
		t.Errorf("Unmarshal = %#v, want %#v", got, want)
	}
}

func runDecodeError(t *testing.T, c vectorCase) {
	in := c.input(t)
	got, err := Unmarshal(in)
	if err == nil {
		t.Fatalf("Unmarshal(%q) = %#v, want error containing %q", in, got, *c.DecodeError)
	}
	var pe *PathError
	if !errors.As(err, &pe) || !strings.HasPrefix(pe.Path, "value") {
		t.Errorf("error %v is not a *PathError rooted at value", err)
	}
	if !strings.Contains(err.Error(), *c.DecodeError) {
		t.Errorf("error %q does not contain %q", err, *c.DecodeError)
	}
}

func runEncodeError(t *testing.T, c vectorCase) {
	v := mustTyped(t, c.Value)
	got, err := Marshal(v)
	if err == nil {
		t.Fatalf("Marshal = %q, want error at %s", got, *c.EncodeError)
	}
	var pe *PathError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *PathError", err)
	}
	if pe.Path != *c.EncodeError {
		t.Errorf("path = %s, want %s (error: %v)", pe.Path, *c.EncodeError, err)
	}
}
