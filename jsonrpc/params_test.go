package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A params value of the wrong JSON type is answered with the field's name
// and the kinds in words: a user sees "solution: want an object, got
// string", never encoding/json's Go struct and type names.
func TestInvalidParamsNameTheFieldNotTheGoType(t *testing.T) {
	type inner struct {
		Code  *string `json:"code"`
		Tries []int   `json:"tries"`
	}
	type params struct {
		Solution inner  `json:"solution"`
		ID       string `json:"submission_id"`
	}
	mux := NewMux()
	Register(mux, "judge.run", func(context.Context, params) (bool, error) { return true, nil })
	for _, tc := range []struct{ params, want string }{
		{`{"solution":"x"}`, "solution: want an object, got string"},
		{`{"solution":{"code":5}}`, "solution.code: want a string, got number"},
		{`{"solution":{"tries":[1,"2"]}}`, "solution.tries: want an integer, got string"},
		{`{"solution":{"tries":{}}}`, "solution.tries: want an array, got object"},
		{`{"submission_id":true}`, "submission_id: want a string, got bool"},
		{`[1]`, "params: want an object, got array"},
	} {
		_, err := mux.Handle(context.Background(), &Request{Method: "judge.run", Params: json.RawMessage(tc.params), ID: json.RawMessage("1")})
		if !errors.Is(err, ErrInvalidParams) {
			t.Fatalf("%s: %v, want invalid params", tc.params, err)
		}
		wire := toWireError("judge.run", err, false)
		var data struct{ Reason string }
		if json.Unmarshal(wire.Data, &data); data.Reason != tc.want {
			t.Errorf("%s: reason %q, want %q", tc.params, data.Reason, tc.want)
		}
		for _, goWord := range []string{"Go struct", "jsonrpc.", "json:", "params.", "inner"} {
			if strings.Contains(err.Error(), goWord) {
				t.Errorf("%s: %q names Go (%q)", tc.params, err, goWord)
			}
		}
	}
}
