//go:build linux

package service

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// An inline problem runs under the linux sandbox, whose user is not the
// judge's (issue 17, item 6: it was always "problem folder not readable by
// the sandbox user", as a verdict).
func TestInlineProblemUnderLinuxSandbox(t *testing.T) {
	client, _ := connect(t, New(&Options{Runner: sandboxtest.Linux(t)}))
	var res struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	params := map[string]any{"problem": bundle("0"), "solution": map[string]any{"code": readySolution}}
	if err := client.Call(context.Background(), "judge.run", params, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "Accepted" {
		t.Fatalf("inline problem under the linux sandbox: %+v, want Accepted", res)
	}
}

// A problem folder the sandbox user cannot read is the caller's
// configuration error: a JSON-RPC error saying how to fix it, not a verdict.
func TestUnreadableProblemIsAnError(t *testing.T) {
	client, _ := connect(t, New(&Options{Runner: sandboxtest.Linux(t)}))
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files := bundle("0")["files"].(map[string]string)
	for name, body := range files {
		if err := os.WriteFile(dir+"/"+name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	params := map[string]any{"problem": dir, "solution": map[string]any{"code": readySolution}}
	err := client.Call(context.Background(), "judge.run", params, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(string(rpcErr.Data), "chmod") {
		t.Fatalf("judge.run on an unreadable folder: %v, want -32602 saying how to fix it", err)
	}
}
