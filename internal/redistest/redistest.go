// Package redistest starts a real redis-server for a test: on 127.0.0.1, a
// free port, no persistence, stopped at the test's end. Without
// redis-server the test is skipped, unless TETHER_REQUIRE_REDIS=1 (CI),
// where it fails.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tether-dev/tether/internal/testenv"
)

// Server is a running redis-server.
type Server struct {
	Addr string // host:port
	cmd  *exec.Cmd
	port int
	dir  string
	t    testing.TB
	// scanned is closed when the reader of the server's log has ended.
	scanned chan struct{}
}

// URL is redis://Addr/db.
func (s *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr, db) }

// Start starts a redis-server for t.
func Start(t testing.TB) *Server {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		err = fmt.Errorf("redis-server is not on PATH (apt-get install redis-server): %w", err)
	}
	testenv.Require(t, "TETHER_REQUIRE_REDIS", err)
	s := &Server{dir: t.TempDir(), t: t}
	s.port = freePort(t)
	s.start(t, path)
	t.Cleanup(s.Stop)
	return s
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *Server) start(t testing.TB, path string) {
	t.Helper()
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.port)
	s.cmd = exec.Command(path, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--protected-mode", "yes")
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	// It logs "Ready to accept connections" once it listens.
	ready := make(chan bool, 1)
	s.scanned = make(chan struct{})
	go func() {
		defer close(s.scanned)
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "Ready to accept connections") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			<-s.scanned
			s.cmd.Wait()
			t.Fatalf("redis-server on %s exited before it was ready", s.Addr)
		}
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.scanned
		s.cmd.Wait()
		t.Fatalf("redis-server on %s not ready in 30 s", s.Addr)
	}
}

// Client is a client of the server's database 0, closed when the test
// ends.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// Stop kills the server (its data is lost: no persistence). Idempotent.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.scanned // the log reader sees EOF once the server is dead
	s.cmd.Wait()
	s.cmd = nil
}

// Restart starts a fresh, empty server on the same port.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	path, _ := exec.LookPath("redis-server")
	s.start(s.t, path)
}
