package jsonwords

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestWantGot(t *testing.T) {
	var v struct {
		A struct{} `json:"a"`
		N *int     `json:"n"`
		L []string `json:"l"`
		R json.RawMessage
	}
	for in, want := range map[string]string{
		`{"a":"x"}`:  "want an object, got string",
		`{"n":1.5}`:  "want an integer, got number 1.5",
		`{"l":true}`: "want an array, got bool",
	} {
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(in), &v); !errors.As(err, &te) {
			t.Fatalf("%s: %v", in, err)
		}
		if got := WantGot(te); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
