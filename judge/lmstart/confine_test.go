package lmstart_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/lm/lmconfig"
)

const echoConfig = `{"backends":{"e":{"type":"echo"}}}`

// The file runtime_config.lm names is read by the judge itself, as root:
// it must be a regular file inside the problem folder, after links, of a
// bounded size (issue 27, item 5: absolute paths, "../" and links out were
// read, /dev/zero grew the server's memory, a FIFO hung the run).
func TestProblemConfigFileStaysInTheFolder(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "lm.json"), []byte(echoConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		lm   string
		make func(dir string) error
		also error
	}{
		"absolute path": {lm: fmt.Sprintf("%q", filepath.Join(outside, "lm.json"))},
		"dot-dot":       {lm: fmt.Sprintf("%q", strings.Repeat("../", 40)+filepath.Join(outside, "lm.json")[1:])},
		"link out": {lm: `"link.json"`, make: func(dir string) error {
			return os.Symlink(filepath.Join(outside, "lm.json"), filepath.Join(dir, "link.json"))
		}},
		"link to /dev/zero": {lm: `"zero.json"`, make: func(dir string) error { return os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")) }},
		"folder link out":   {lm: `"conf/lm.json"`, make: func(dir string) error { return os.Symlink(outside, filepath.Join(dir, "conf")) }},
		"a folder":          {lm: `"conf"`, make: func(dir string) error { return os.Mkdir(filepath.Join(dir, "conf"), 0o755) }},
		"over the size cap": {lm: `"big.json"`, make: func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "big.json"), []byte(echoConfig+strings.Repeat(" ", judge.MaxLMConfigBytes)), 0o644)
		}},
	} {
		t.Run(name, func(t *testing.T) {
			p := problem(t, tc.lm, nil)
			if tc.make != nil {
				if err := tc.make(p.Dir); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := lmstart.ProblemConfig(p)
			var pe *judge.ProblemError
			if !errors.As(err, &pe) || pe.Field != "runtime_config.lm" || !errors.Is(err, judge.ErrBadProblemJSON) {
				t.Fatalf("got %v, %v; want a ProblemError on runtime_config.lm", cfg, err)
			}
		})
	}
	t.Run("link inside the folder", func(t *testing.T) {
		p := problem(t, `"lm.json"`, map[string]string{"real.json": echoConfig})
		if err := os.Symlink("real.json", filepath.Join(p.Dir, "lm.json")); err != nil {
			t.Fatal(err)
		}
		if cfg, err := lmstart.ProblemConfig(p); err != nil || cfg.Default != "e" {
			t.Fatalf("got %v, %v; want the linked configuration", cfg, err)
		}
	})
}

// A FIFO named by runtime_config.lm is refused at once, not waited on.
func TestProblemConfigFIFODoesNotHang(t *testing.T) {
	p := problem(t, `"lm.json"`, nil)
	fifo := filepath.Join(p.Dir, "lm.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := lmstart.ProblemConfig(p)
		errc <- err
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, judge.ErrBadProblemJSON) {
			t.Fatalf("a FIFO: %v, want a ProblemError", err)
		}
	case <-time.After(10 * time.Second):
		// Release the reader so that it does not outlive the test.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-errc
		t.Fatal("reading runtime_config.lm from a FIFO waited for a writer")
	}
}

// What is wrong with the file is said without its bytes: whoever reads the
// error (a serve client) may not be allowed to read the file (issue 27,
// item 5: the JSON error quoted its first byte, or its member names).
func TestProblemConfigFileErrorsDoNotQuoteIt(t *testing.T) {
	for _, body := range []string{
		"Zsecret",
		`{"top-secret-member": 1}`,
		`{"backends": "secret-string"}`,
		`{"backends":{"secret-name":{"type":"secret-type"}}}`,
		`{"backends":{"e":{"type":"echo"}},"default":"secret-default"}`,
		`{"backends":{"secret-name":{"type":"openai","base_url":"http://x","api_key_env":"SECRET_ENV"}}}`,
	} {
		_, err := lmstart.ProblemConfig(problem(t, `"lm.json"`, map[string]string{"lm.json": body}))
		if !errors.Is(err, judge.ErrBadProblemJSON) {
			t.Fatalf("%s: %v, want a ProblemError", body, err)
		}
		if msg := strings.ToLower(err.Error()); strings.Contains(msg, "secret") || strings.Contains(msg, "'z'") {
			t.Errorf("%s: the error quotes the file: %v", body, err)
		}
	}
}

// chatTarget is a loopback chat-completions server: /v1/chat/completions
// answers as told; /v1/moved redirects to /inner, whose hits are counted.
type chatTarget struct {
	srv         *httptest.Server
	hits, inner atomic.Int64
}

func newChatTarget(t *testing.T, status int, body string) *chatTarget {
	c := &chatTarget{}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
	mux.HandleFunc("/v1/moved/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		http.Redirect(w, r, "/inner", http.StatusFound)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		c.inner.Add(1)
		w.Write([]byte("inner secret"))
	})
	c.srv = httptest.NewServer(mux)
	t.Cleanup(c.srv.Close)
	return c
}

const chatOK = `{"choices":[{"message":{"role":"assistant","content":"from the target"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`

// ask starts a handler with starter for p and asks it once.
func ask(t *testing.T, starter judge.LMStarter, p *judge.Problem) (string, error) {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "lm.sock")
	h, err := starter(context.Background(), p, socket, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cc, err := query(t, socket)
	if err != nil {
		return "", err
	}
	return cc.Response, nil
}

func openaiProblem(t *testing.T, baseURL string) *judge.Problem {
	return problem(t, `{"backends":{"m":{"type":"openai","base_url":"`+baseURL+`"}}}`, nil)
}

// A problem's own openai backend reaches public addresses only, unless the
// operator allows more; it follows no redirect; and the evaluator learns
// only the status of a failed request (issue 27, item 6: the backend was a
// way from a network-less sandbox to the host's loopback and metadata
// service, with redirects followed and error bodies returned).
func TestProblemBackendIsGuarded(t *testing.T) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	t.Run("loopback refused", func(t *testing.T) {
		target := newChatTarget(t, 200, chatOK)
		port := target.srv.URL[strings.LastIndex(target.srv.URL, ":"):]
		for _, base := range []string{target.srv.URL + "/v1", "http://localhost" + port + "/v1"} {
			_, err := ask(t, lmstart.Starter(nil, nil), openaiProblem(t, base))
			if err == nil || !strings.Contains(err.Error(), "not a public address") {
				t.Errorf("%s: %v, want the address refused", base, err)
			}
		}
		if n := target.hits.Load(); n != 0 {
			t.Errorf("the loopback server got %d requests", n)
		}
	})
	t.Run("allowed by the operator", func(t *testing.T) {
		target := newChatTarget(t, 200, chatOK)
		got, err := ask(t, lmstart.Starter(nil, &lmstart.Options{AllowLMHosts: loopback}), openaiProblem(t, target.srv.URL+"/v1"))
		if err != nil || got != "from the target" {
			t.Fatalf("got %q, %v; want the target's answer", got, err)
		}
	})
	t.Run("error body kept from the evaluator", func(t *testing.T) {
		target := newChatTarget(t, 500, `{"error":{"message":"inner secret"}}`)
		_, err := ask(t, lmstart.Starter(nil, &lmstart.Options{AllowLMHosts: loopback}), openaiProblem(t, target.srv.URL+"/v1"))
		if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "500") {
			t.Fatalf("got %v, want the status without the body", err)
		}
	})
	t.Run("no redirect followed", func(t *testing.T) {
		target := newChatTarget(t, 200, chatOK)
		_, err := ask(t, lmstart.Starter(nil, &lmstart.Options{AllowLMHosts: loopback}), openaiProblem(t, target.srv.URL+"/v1/moved"))
		if err == nil || !strings.Contains(err.Error(), "302") {
			t.Errorf("got %v, want the redirect's status as the error", err)
		}
		if target.hits.Load() != 1 || target.inner.Load() != 0 {
			t.Errorf("hits %d, redirect target %d; want 1, 0", target.hits.Load(), target.inner.Load())
		}
	})
	t.Run("the operator's backends as before", func(t *testing.T) {
		target := newChatTarget(t, 200, chatOK)
		cfg, err := lmconfig.Parse([]byte(`{"backends":{"m":{"type":"openai","base_url":"` + target.srv.URL + `/v1"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ask(t, lmstart.Starter(cfg, nil), openaiProblem(t, "http://192.0.2.1/v1"))
		if err != nil || got != "from the target" {
			t.Fatalf("got %q, %v; want the operator's backend to reach loopback", got, err)
		}
	})
}

func TestGuardAddresses(t *testing.T) {
	g := &backend.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700:4700::1111": true, "10.1.2.3": true,
		"127.0.0.1": false, "::1": false, "::ffff:127.0.0.1": false, "0.0.0.1": false, "0.0.0.0": false,
		"169.254.169.254": false, "fe80::1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false,
		"100.64.0.1": false, "fd00:ec2::254": false, "224.0.0.1": false, "255.255.255.255": false, "64:ff9b::7f00:1": false,
	} {
		if got := g.Allows(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: allowed %v, want %v", addr, got, want)
		}
	}
}
