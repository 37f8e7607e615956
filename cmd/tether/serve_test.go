package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/jsonrpc"
)

// runServeStdio runs `tether serve --stdio` in-process on in and returns
// what it wrote to stdout.
func runServeStdio(t *testing.T, in string, flags ...string) string {
	t.Helper()
	var out bytes.Buffer
	err := runTether(context.Background(), thisMachine, strings.NewReader(in), &out, &bytes.Buffer{}, append([]string{"serve", "--stdio"}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestServeStdio(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"tether.version","id":1}`,
		`{"jsonrpc":"2.0","method":"judge.cancel","params":{"submission_id":"none"},"id":2}`,
		`{"jsonrpc":"2.0","method":"lm.complete","params":{"prompt":"hi"},"id":3}`,
		`not json`,
	}, "\n") + "\n"
	out := runServeStdio(t, in, "--sandbox", "none")
	byID := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var msg map[string]any
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		id, _ := json.Marshal(msg["id"])
		byID[string(id)] = msg
	}
	if r, _ := byID["1"]["result"].(map[string]any); r["protocols"] == nil || r["version"] == "" {
		t.Errorf("tether.version: %v", byID["1"])
	}
	if r, _ := byID["2"]["result"].(map[string]any); r["cancelled"] != false {
		t.Errorf("judge.cancel: %v", byID["2"])
	}
	if e, _ := byID["3"]["error"].(map[string]any); e["code"] != float64(-32002) {
		t.Errorf("lm.complete without --lm: %v", byID["3"])
	}
	if e, _ := byID["null"]["error"].(map[string]any); e["code"] != float64(-32700) {
		t.Errorf("not json: %v", byID["null"])
	}
}

func TestServeNeedsExactlyOneMode(t *testing.T) {
	err := runTether(context.Background(), thisMachine, nil, io.Discard, io.Discard, "serve", "--stdio", "--http", "127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), "exactly one") {
		t.Errorf("two modes: %v", err)
	}
}

// judge.run over JSON-RPC gives a problem's LM handler to its run, as
// `tether judge` does: examples/llm is Accepted with its usage reported.
func TestServeJudgeRunWithProblemLM(t *testing.T) {
	testenv.Python3(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"judge.run","params":{"problem":"../../examples/llm",` +
		`"solution":{"language":"python","path":"../../examples/llm/solution.py"}}}` + "\n"
	lines := strings.Split(strings.TrimSpace(runServeStdio(t, in)), "\n")
	var resp struct {
		Result struct {
			Status  string `json:"status"`
			LMUsage struct {
				Models map[string]struct {
					Calls int `json:"total_calls"`
				} `json:"model_usage_summaries"`
			} `json:"lm_usage"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &resp); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	if resp.Result.Status != "Accepted" || resp.Result.LMUsage.Models["echo"].Calls != 3 {
		t.Fatalf("judge.run on examples/llm: %s", lines[len(lines)-1])
	}
}

// startServe runs `tether serve` in-process with flags until the test ends
// and returns the address it prints as its first line of stdout, and the
// token its clients need (from a --token-file it makes in a temp folder).
func startServe(t *testing.T, flags ...string) (string, string) {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	flags = append(flags, "--token-file", tokenFile)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := runTether(ctx, thisMachine, strings.NewReader(""), pw, io.Discard, append([]string{"serve", "--sandbox", "none"}, flags...)...)
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		err := <-done
		if err != nil {
			t.Errorf("serve %v: %v", flags, err)
		}
	})
	r := bufio.NewReader(pr)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("serve %v printed no address: %v", flags, err)
	}
	go io.Copy(io.Discard, r)
	token, _ := os.ReadFile(tokenFile) // none for a unix: socket
	return strings.TrimSpace(line), strings.TrimSpace(string(token))
}

// `tether serve --listen` answers on a Unix socket (newline-delimited) and
// on a TCP port 0 (length-prefixed), printing the address it listens on.
func TestServeListen(t *testing.T) {
	for _, tc := range []struct {
		name, framing string
		frame         jsonrpc.Framing
	}{{"unix-ndjson", "ndjson", jsonrpc.LineFraming(0)}, {"tcp-length", "length", jsonrpc.LengthFraming(0)}} {
		t.Run(tc.name, func(t *testing.T) {
			listen, network, dial := "127.0.0.1:0", "tcp", ""
			if tc.name == "unix-ndjson" {
				dial = filepath.Join(t.TempDir(), "rpc.sock")
				listen, network = "unix:"+dial, "unix"
			}
			addr, token := startServe(t, "--listen", listen, "--framing", tc.framing)
			if network == "unix" && addr != listen {
				t.Errorf("printed %q, want %s", addr, listen)
			}
			if network == "tcp" {
				dial = addr
			}
			nc, err := net.Dial(network, dial)
			if err != nil {
				t.Fatal(err)
			}
			client := jsonrpc.NewConn(tc.frame(nc, nc), nil)
			defer client.Close()
			var v struct {
				Version   string            `json:"version"`
				Protocols map[string]string `json:"protocols"`
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if network == "tcp" {
				if err := jsonrpc.Authenticate(ctx, client, token); err != nil {
					t.Fatal(err)
				}
			} else if token != "" {
				t.Errorf("a token file was made for a unix socket")
			}
			if err := client.Call(ctx, "tether.version", nil, &v); err != nil || v.Version == "" || v.Protocols["jsonrpc"] != "2.0" {
				t.Errorf("tether.version = %+v, %v", v, err)
			}
		})
	}
}

// `tether serve --http HOST:0` answers POSTs on the port it prints: a
// request gets its response, a body that is not application/json 415, and
// a batch of notifications only 204 with no body.
func TestServeHTTP(t *testing.T) {
	addr, token := startServe(t, "--http", "127.0.0.1:0")
	url := "http://" + addr + "/"
	client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	post := func(contentType, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}

	code, body := post("application/json", `{"jsonrpc":"2.0","method":"tether.version","id":1}`)
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			Version   string            `json:"version"`
			Protocols map[string]string `json:"protocols"`
		} `json:"result"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &resp) != nil || resp.ID != 1 ||
		resp.Result.Version == "" || resp.Result.Protocols["jsonrpc"] != "2.0" {
		t.Errorf("tether.version: %d %s", code, body)
	}
	if code, body := post("text/plain", `{"jsonrpc":"2.0","method":"tether.version","id":2}`); code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d %s, want 415", code, body)
	}
	batch := `[{"jsonrpc":"2.0","method":"tether.version"},{"jsonrpc":"2.0","method":"judge.cancel","params":{"submission_id":"x"}}]`
	if code, body := post("application/json", batch); code != http.StatusNoContent || body != "" {
		t.Errorf("notifications only: %d %q, want 204 and no body", code, body)
	}
}

// --allow-command replaces the evaluator allow-list of the runs it serves.
func TestServeAllowCommand(t *testing.T) {
	dir, sol := shellProblem(t)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "judge.run",
		"params": map[string]any{"problem": dir, "solution": map[string]any{"path": sol}}})
	var resp struct {
		Result *struct{ Status string } `json:"result"`
		Error  *struct {
			Code int `json:"code"`
			Data struct {
				Reason string `json:"reason"`
			} `json:"data"`
		} `json:"error"`
	}
	lastLine := func(out string) string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[len(lines)-1]
	}
	out := lastLine(runServeStdio(t, string(req)+"\n", "--sandbox", "none", "--allow-command", "python3,node"))
	if json.Unmarshal([]byte(out), &resp) != nil || resp.Error == nil || resp.Error.Code != -32602 ||
		!strings.Contains(resp.Error.Data.Reason, `not on the allow-list: "sh"`) {
		t.Errorf("--allow-command python3,node: %s, want -32602 saying sh is not allowed", out)
	}
	resp.Error, resp.Result = nil, nil
	out = lastLine(runServeStdio(t, string(req)+"\n", "--sandbox", "none"))
	if json.Unmarshal([]byte(out), &resp) != nil || resp.Result == nil || resp.Result.Status != "WrongAnswer" {
		t.Errorf("default allow-list: %s, want shellProblem's WrongAnswer", out)
	}
}
