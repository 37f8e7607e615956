// Package e2e tests the tether binary as a judge fleet: real redis-server,
// a stand-in for Neuro OJ's core (internal/nojcore), workers as child
// processes that can be signalled and killed.
package e2e_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/internal/redistest"
	"github.com/tether-dev/tether/supportpkg"
)

var tetherBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tether-e2e-")
	if err != nil {
		panic(err)
	}
	tetherBin = filepath.Join(dir, "tether")
	build := exec.Command("go", "build", "-o", tetherBin, "github.com/tether-dev/tether/cmd/tether")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: cannot build tether:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := 0
	func() {
		defer func() { os.RemoveAll(dir) }()
		goleak.VerifyTestMain(exitCatcher{&code, m})
	}()
	os.Exit(code)
}

// exitCatcher lets TestMain remove the binary after the tests: goleak
// calls os.Exit itself otherwise.
type exitCatcher struct {
	code *int
	m    *testing.M
}

func (e exitCatcher) Run() int { *e.code = e.m.Run(); return *e.code }

// proc is a tether child process whose JSON log lines are read as events.
type proc struct {
	cmd     *exec.Cmd
	workDir string // a worker's --work-dir
	lines   chan map[string]any
	done    chan struct{} // the log reader ended
	mu      sync.Mutex
	log     bytes.Buffer
}

func startTether(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startProgram(t, env, tetherBin, args...)
}

// startProgram is startTether for a program that runs tether (ip netns
// exec NAME tether ...): path and its arguments.
func startProgram(t *testing.T, env []string, path string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan map[string]any, 1000), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		defer close(p.lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.Write(sc.Bytes())
			p.log.WriteByte('\n')
			p.mu.Unlock()
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				select {
				case p.lines <- m:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		p.cmd.Wait()
		if t.Failed() {
			t.Logf("tether %s log:\n%s", strings.Join(args[:1], " "), p.logText())
		}
	})
	return p
}

func (p *proc) logText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// waitLog waits for a log line with msg, for up to d.
func (p *proc) waitLog(t *testing.T, msg string, d time.Duration) map[string]any {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				t.Fatalf("tether exited before logging %q", msg)
			}
			if m["msg"] == msg {
				return m
			}
		case <-timer.C:
			t.Fatalf("no %q log line within %v", msg, d)
		}
	}
}

// exit waits for the process to end and returns its exit code.
func (p *proc) exit(t *testing.T, d time.Duration) int {
	t.Helper()
	ended := make(chan struct{})
	go func() { <-p.done; close(ended) }()
	select {
	case <-ended:
	case <-time.After(d):
		t.Fatalf("tether did not exit within %v", d)
	}
	p.cmd.Wait()
	return p.cmd.ProcessState.ExitCode()
}

type fleet struct {
	t      *testing.T
	srv    *redistest.Server
	client *redis.Client
	work   string
	core   *nojcore.Consumer
}

func newFleet(t *testing.T) *fleet {
	srv := redistest.Start(t)
	c := srv.Client()
	return &fleet{t: t, srv: srv, client: c, work: t.TempDir(), core: &nojcore.Consumer{C: c}}
}

// worker starts `tether worker` on the fleet's Redis with its own work dir.
func (f *fleet) worker(env []string, extra ...string) *proc {
	f.t.Helper()
	return f.workerIn(f.t.TempDir(), env, extra...)
}

// workerIn is worker with its work and cache dirs under dir.
func (f *fleet) workerIn(dir string, env []string, extra ...string) *proc {
	f.t.Helper()
	args := append([]string{"worker", "--broker", f.srv.URL(0), "--work-dir", filepath.Join(dir, "work"),
		"--cache-dir", filepath.Join(dir, "cache"), "--sandbox", "none", "--log-format", "json"}, extra...)
	p := startTether(f.t, env, args...)
	p.workDir = filepath.Join(dir, "work")
	p.waitLog(f.t, "worker ready", 60*time.Second)
	return p
}

func (f *fleet) produce(task []byte) {
	f.t.Helper()
	if err := nojcore.Produce(context.Background(), f.client, task, 1000); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fleet) llen(key string) int64 {
	n, err := f.client.LLen(context.Background(), key).Result()
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// results polls the core's consumer until n submissions have a result.
func (f *fleet) results(n int, d time.Duration) {
	f.t.Helper()
	deadline := time.Now().Add(d)
	for {
		if _, err := f.core.Drain(context.Background()); err != nil {
			f.t.Fatal(err)
		}
		if f.core.Count() >= n {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%d results within %v, want %d", f.core.Count(), d, n)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, not synchronising
	}
}

// aplusbZip is examples/aplusb as a support package.
func aplusbZip(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := supportpkg.Pack("../../examples/aplusb", &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type task struct {
	id, url, code string
	seq           int64
	callTimeoutMs int
}

func (tk task) json() []byte {
	if tk.callTimeoutMs == 0 {
		tk.callTimeoutMs = 5000
	}
	b, _ := json.Marshal(map[string]any{
		"submission_id": tk.id, "problem_id": "aplusb", "language": "python", "code": tk.code,
		"download_url": tk.url, "file_name": "main.py", "rejudge_seq": tk.seq,
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": "noj-evaluator-python", "command": "python3 /workspace/evaluate.py",
				"time_limit_ms": 120000, "memory_limit_mb": 256},
			"solution": map[string]any{"image": "noj-solution-python", "call_timeout_ms": tk.callTimeoutMs, "memory_limit_mb": 256},
		},
	})
	return b
}

const goodCode = "def add(a, b):\n    return a + b\n"

// gatedCode is an add that waits until the host file gate exists (the
// none runner shares the host's files): a run that lasts as long as the
// test wants.
func gatedCode(gate string) string {
	return fmt.Sprintf("import os, time\ndef add(a, b):\n    while not os.path.exists(%q):\n        time.sleep(0.02)\n    return a + b\n", gate)
}

// tlsServer serves body at /pkg.zip over TLS; the returned env points a
// child's Go TLS at the server's CA.
func tlsServer(t *testing.T, body []byte) (pkgURL string, env []string) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/pkg.zip" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return srv.URL + "/pkg.zip", []string{"SSL_CERT_FILE=" + caFile}
}

func s3URL(httpsURL string, sum string) string {
	return "noj-download://s3?url=" + url.QueryEscape(httpsURL) + "&checksum_sha256=" + sum
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// craftedZip holds the given entries as they are named (no cleaning).
func craftedZip(t *testing.T, entries map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(w, bytes.NewReader(data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func message(t *testing.T, r nojcore.Result) string {
	t.Helper()
	var d map[string]any
	json.Unmarshal(r.Details, &d)
	m, _ := d["message"].(string)
	return m
}
