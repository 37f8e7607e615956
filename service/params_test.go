package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tether-dev/tether/jsonrpc"
)

// invalidParams checks that err is -32602 with data.reason want and
// returns it.
func invalidParams(t *testing.T, err error, params map[string]any, want string) *jsonrpc.Error {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("%v: %v, want -32602", params, err)
	}
	var data struct{ Reason string }
	if err := json.Unmarshal(rpcErr.Data, &data); err != nil || data.Reason != want {
		t.Errorf("%v: data %s, want reason %q", params, rpcErr.Data, want)
	}
	return rpcErr
}

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
		rpcErr := invalidParams(t, client.Call(context.Background(), "judge.run", tc.params, nil), tc.params, tc.want)
		if strings.Contains(string(rpcErr.Data), "Go struct") || strings.Contains(string(rpcErr.Data), "service.") {
			t.Errorf("%v: data %s names a Go type", tc.params, rpcErr.Data)
		}
	}
}

// A misspelt judge.run parameter is named in the -32602 answer with the
// nearest valid name (at the top and inside "solution"), not dropped
// without a word; _meta is every request's and is not refused.
func TestJudgeRunMisspeltParamNamesTheNearest(t *testing.T) {
	client, _ := connect(t, newService())
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"problem": bundle("0"), "soluton": map[string]any{"code": "x"}}, `soluton: unknown parameter; did you mean "solution"?`},
		{map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": "x"}, "submision_id": "a"}, `submision_id: unknown parameter; did you mean "submission_id"?`},
		{map[string]any{"problem": bundle("0"), "solution": map[string]any{"cdoe": "x"}}, `solution.cdoe: unknown parameter; did you mean "code"?`},
	} {
		invalidParams(t, client.Call(context.Background(), "judge.run", tc.params, nil), tc.params, tc.want)
	}
	var p RunParams
	if err := json.Unmarshal([]byte(`{"problem":"p","solution":{"code":"x"},"_meta":{"progressToken":1}}`), &p); err != nil || p.Solution.Code == nil {
		t.Fatalf("_meta refused: %v", err)
	}
}
