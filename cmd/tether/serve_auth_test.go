package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/jsonrpc"
)

// `tether serve` over TCP and HTTP answers only clients with its token,
// made 0600; a unix socket is made 0600; and host paths outside the roots
// are refused even to a client with the token (issue 17, item 3: any local
// user could run judge.run and got /etc/shadow back through solution.path).
func TestServeIsNotOpenToOtherUsers(t *testing.T) {
	t.Run("listen-tcp", testServeTCPNeedsTheToken)
	t.Run("listen-unix", func(t *testing.T) {
		sock := filepath.Join(t.TempDir(), "rpc.sock")
		startServe(t, "--listen", "unix:"+sock)
		if info, err := os.Stat(sock); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("unix socket: %v, %v; want mode 0600", info.Mode(), err)
		}
	})
	t.Run("http", testServeHTTPNeedsTheToken)
}

func testServeTCPNeedsTheToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addr, token := startServe(t, "--listen", "127.0.0.1:0")
	if token == "" {
		t.Fatal("no token file was made for --listen HOST:PORT")
	}
	dial := func() *jsonrpc.Conn {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c := jsonrpc.NewConn(jsonrpc.NDJSON(nc, nc, 0), nil)
		t.Cleanup(func() { c.Close() })
		return c
	}
	steal := map[string]any{"problem": "../../examples/aplusb", "solution": map[string]any{"path": "/etc/shadow"}}
	if err := dial().Call(ctx, "judge.run", steal, nil); !errors.Is(err, jsonrpc.ErrUnauthorized) {
		t.Errorf("judge.run without the token: %v, want -32004", err)
	}
	c := dial()
	if err := jsonrpc.Authenticate(ctx, c, token); err != nil {
		t.Fatal(err)
	}
	var rpcErr *jsonrpc.Error
	if err := c.Call(ctx, "judge.run", steal, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams ||
		!strings.Contains(string(rpcErr.Data), "--problems-root") {
		t.Errorf("judge.run of host paths without roots: %v, want -32602 naming --problems-root", err)
	}
}

func testServeHTTPNeedsTheToken(t *testing.T) {
	httpAddr, httpToken := startServe(t, "--http", "127.0.0.1:0")
	post := func(host, auth string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+httpAddr+"/", strings.NewReader(`{"jsonrpc":"2.0","method":"tether.version","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		if host != "" {
			req.Host = host
		}
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
		defer client.CloseIdleConnections()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("", ""); code != http.StatusUnauthorized {
		t.Errorf("HTTP without the token: %d, want 401", code)
	}
	if code := post("rebound.example", httpToken); code != http.StatusMisdirectedRequest {
		t.Errorf("HTTP with a rebound Host: %d, want 421", code)
	}
	if code := post("localhost", httpToken); code != http.StatusOK {
		t.Errorf("HTTP with the token: %d, want 200", code)
	}
}

// The token file is the user's alone: made 0600, and refused when others
// can read it.
func TestServerTokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	token, file, cleanup, err := serverToken(path)
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 || len(token) < 32 {
		t.Fatalf("made %s: %v, %v, token of %d characters", file, info.Mode(), err, len(token))
	}
	again, _, _, err := serverToken(path)
	if err != nil || again != token {
		t.Errorf("reading it back: %q, %v", again, err)
	}
	os.Chmod(path, 0o644)
	if _, _, _, err := serverToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a token file others can read: %v, want a refusal saying chmod 600", err)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	_, file, cleanup, err = serverToken("")
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a token file made at a default path stays after the server: %v", err)
	}
}
