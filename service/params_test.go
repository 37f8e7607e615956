package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tether-dev/tether/jsonrpc"
)

// What a user saw: judge.run with a string for "solution" was answered
// with encoding/json's "Go struct field RunParams.solution of type
// service.SolutionParams". The answer names the field in the request's words.
func TestJudgeRunWrongTypedParamNamesTheField(t *testing.T) {
	client, _ := connect(t, newService())
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"problem": bundle("0"), "solution": "print(1)"}, "solution: want an object, got string"},
		{map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": 1}}, "solution.code: want a string, got number"},
		{map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": "x"}, "submission_id": 7}, "submission_id: want a string, got number"},
	} {
		err := client.Call(context.Background(), "judge.run", tc.params, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("%v: %v, want -32602", tc.params, err)
		}
		var data struct{ Reason string }
		if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.Reason != tc.want {
			t.Errorf("%v: data %s, want reason %q", tc.params, rpcErr.Data, tc.want)
		}
		if strings.Contains(string(rpcErr.Data), "Go struct") || strings.Contains(string(rpcErr.Data), "service.") {
			t.Errorf("%v: data %s names a Go type", tc.params, rpcErr.Data)
		}
	}
}
