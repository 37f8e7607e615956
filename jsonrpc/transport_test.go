package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeTCPAndUnixWithEveryFraming(t *testing.T) {
	listeners := map[string]func(t *testing.T) net.Listener{
		"tcp": func(t *testing.T) net.Listener {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		"unix": func(t *testing.T) net.Listener {
			l, err := net.Listen("unix", filepath.Join(t.TempDir(), "rpc.sock"))
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
	}
	framings := map[string]Framing{"ndjson": LineFraming(0), "length-prefixed": LengthFraming(0)}
	for lname, listen := range listeners {
		for fname, framing := range framings {
			t.Run(lname+"/"+fname, func(t *testing.T) {
				l := listen(t)
				ctx, cancel := context.WithCancel(context.Background())
				served := make(chan error, 1)
				go func() { served <- Serve(ctx, l, framing, &Options{Handler: testMux()}) }()
				for i := 0; i < 2; i++ { // two clients, one after the other
					nc, err := net.Dial(l.Addr().Network(), l.Addr().String())
					if err != nil {
						t.Fatal(err)
					}
					client := NewConn(framing(nc, nc), nil)
					var sum int
					if err := client.Call(ctx, "add", map[string]int{"A": i, "B": 1}, &sum); err != nil || sum != i+1 {
						t.Errorf("client %d: add = %d, %v", i, sum, err)
					}
					if i == 1 {
						break // leave it open: Serve must close it
					}
					client.Close()
				}
				cancel()
				if err := <-served; err != nil {
					t.Errorf("Serve = %v, want nil after cancel", err)
				}
			})
		}
	}
}

func postJSON(t *testing.T, url, body, accept string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestHTTP(t *testing.T) {
	mux := testMux()
	mux.AddFunc("steps", func(ctx context.Context, _ *Request) (any, error) {
		for i := 1; i <= 2; i++ {
			if err := Progress(ctx, i); err != nil {
				return nil, err
			}
		}
		var x string
		if err := ConnFrom(ctx).Call(ctx, "back", nil, &x); !errors.Is(err, ErrNoBackChannel) {
			return nil, fmt.Errorf("call back over HTTP: %v, want ErrNoBackChannel", err)
		}
		return "done", nil
	})
	srv := httptest.NewServer(NewHTTPHandler(&Options{Handler: mux}, 256))
	defer srv.Close()

	resp := postJSON(t, srv.URL, `{"jsonrpc":"2.0","method":"add","params":{"A":1,"B":2},"id":1}`, "")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !jsonEqual(t, body, []byte(`{"jsonrpc":"2.0","id":1,"result":3}`)) {
		t.Errorf("single call: %d %s", resp.StatusCode, body)
	}
	resp = postJSON(t, srv.URL, "[{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[1],\"id\":1},\n {\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[2],\"id\":2}]", "")
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "[") || strings.Count(string(body), `"result"`) != 2 {
		t.Errorf("multi-line batch: %d %s", resp.StatusCode, body)
	}
	resp = postJSON(t, srv.URL, `{"jsonrpc":"2.0","method":"echo","params":[1]}`, "")
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("notification: status %d, want 204", resp.StatusCode)
	}
	resp = postJSON(t, srv.URL, `{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("x", 300)+`"],"id":1}`, "")
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "-32001") {
		t.Errorf("oversize body: %d %s", resp.StatusCode, body)
	}
	resp = postJSON(t, srv.URL, `{"jsonrpc":"2.0","method":"steps","id":"s"}`, "application/json, text/event-stream")
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("SSE content type %q", ct)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, data)
		}
	}
	if len(events) != 3 ||
		!jsonEqual(t, []byte(events[0]), []byte(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"s","value":1}}`)) ||
		!jsonEqual(t, []byte(events[1]), []byte(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"s","value":2}}`)) ||
		!jsonEqual(t, []byte(events[2]), []byte(`{"jsonrpc":"2.0","id":"s","result":"done"}`)) {
		t.Errorf("SSE events %q", events)
	}
	get, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	get.Body.Close()
	if get.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", get.StatusCode)
	}
}
