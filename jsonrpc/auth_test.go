package jsonrpc

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// With a token, a connection of Serve answers nothing but rpc.authenticate
// until it has the token, and a wrong one closes it.
func TestServeNeedsTheToken(t *testing.T) {
	addr := serveGuarded(t, LineFraming(0), &Options{Handler: testMux(), Token: "s3cret"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func() *Conn {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c := NewConn(NDJSON(nc, nc, 0), nil)
		t.Cleanup(func() { c.Close() })
		return c
	}
	c := dial()
	var sum int
	if err := c.Call(ctx, "add", map[string]int{"A": 1, "B": 2}, &sum); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("a call before rpc.authenticate: %v, want -32004", err)
	}
	if err := Authenticate(ctx, c, "s3cret"); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "add", map[string]int{"A": 1, "B": 2}, &sum); err != nil || sum != 3 {
		t.Fatalf("after rpc.authenticate: %d, %v", sum, err)
	}
	wrong := dial()
	if err := Authenticate(ctx, wrong, "guess"); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("a wrong token: %v, want -32004", err)
	}
	select {
	case <-wrong.Done():
	case <-ctx.Done():
		t.Fatal("the connection with a wrong token stayed open")
	}
}

// Over HTTP every POST carries the token, and on loopback the Host header
// must name loopback (DNS rebinding).
func TestHTTPNeedsTheTokenAndALoopbackHost(t *testing.T) {
	srv := httptest.NewServer(NewHTTPHandler(&Options{Handler: testMux(), Token: "s3cret",
		AllowedHosts: []string{"localhost", "127.0.0.1", "::1"}}, 0))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	post := func(host, auth string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":1},"id":1}`))
		req.Header.Set("Content-Type", "application/json")
		if host != "" {
			req.Host = host
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, b.String()
	}
	if code, body := post("", ""); code != http.StatusUnauthorized || !strings.Contains(body, "-32004") {
		t.Errorf("no token: %d %s, want 401", code, body)
	}
	if code, _ := post("", "Bearer guess"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", code)
	}
	if code, body := post("evil.example:80", "Bearer s3cret"); code != http.StatusMisdirectedRequest {
		t.Errorf("a rebound Host: %d %s, want 421", code, body)
	}
	if code, body := post("", "Bearer s3cret"); code != http.StatusOK || !strings.Contains(body, `"result":2`) {
		t.Errorf("with the token: %d %s", code, body)
	}
}
