//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/lm"
)

// startLimited starts the tether binary with args under a limit of nofile
// open files (soft and hard, so Go cannot raise it) and returns the process
// and the address it prints first.
func startLimited(t *testing.T, bin string, nofile int, args ...string) (*exec.Cmd, string) {
	t.Helper()
	script := fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, nofile)
	cmd := exec.Command("sh", append([]string{"-c", script, bin}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("%v printed no address: %v", args, err)
	}
	return cmd, strings.TrimSpace(line)
}

// authenticate gives a server the token it wrote to tokenFile.
func authenticate(t *testing.T, ctx context.Context, c *jsonrpc.Conn, tokenFile string) {
	t.Helper()
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonrpc.Authenticate(ctx, c, strings.TrimSpace(string(token))); err != nil {
		t.Fatal(err)
	}
}

// lmStillAnswers fails t unless the LM server at addr answers a query
// within timeout.
func lmStillAnswers(t *testing.T, addr string, timeout time.Duration) {
	t.Helper()
	cl, err := lm.NewClient(addr, &lm.ClientOptions{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if c, err := cl.Query(context.Background(), "still there", ""); err != nil || c.Response != "still there" {
		t.Fatalf("after the flood: %+v, %v", c, err)
	}
}

// serveStillAnswers fails t unless the JSON-RPC server at addr, framed by
// framing, takes the token in tokenFile and answers tether.version within
// timeout.
func serveStillAnswers(t *testing.T, addr, tokenFile string, framing func(io.Reader, io.Writer, int) jsonrpc.Channel, timeout time.Duration) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("after the flood: %v", err)
	}
	client := jsonrpc.NewConn(framing(nc, nc, 0), nil)
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	authenticate(t, ctx, client, tokenFile)
	var v struct{ Version string }
	if err := client.Call(ctx, "tether.version", nil, &v); err != nil || v.Version == "" {
		t.Fatalf("after the flood: %+v, %v", v, err)
	}
}

// openFDs counts the open files of process pid.
func openFDs(pid int) int {
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(entries)
}

// flood opens n connections to addr (more than the server has descriptors
// for) and waits until the server has used every descriptor it has, so that
// its next accept fails for want of one, or it has ended.
func flood(t *testing.T, cmd *exec.Cmd, addr string, n, nofile int) []net.Conn {
	t.Helper()
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", len(conns), err)
		}
		conns = append(conns, c)
	}
	deadline := time.Now().Add(20 * time.Second)
	for openFDs(cmd.Process.Pid) < nofile-1 {
		if time.Now().After(deadline) {
			t.Fatalf("the server holds %d descriptors of %d after %d connections", openFDs(cmd.Process.Pid), nofile, n)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition with a deadline
	}
	return conns
}

// Out of file descriptors, a server waits and goes on serving once
// connections close (issue 17, item 4: `tether lm serve` under ulimit -n
// 200 and `tether serve --listen` at ~20,000 connections exited on
// "accept4: too many open files").
func TestServersSurviveRunningOutOfDescriptors(t *testing.T) {
	bin := sbxTetherBinary(t)
	const nofile, conns = 40, 80
	t.Run("lm-serve", func(t *testing.T) {
		cmd, addr := startLimited(t, bin, nofile, "lm", "serve", "--listen", "127.0.0.1:0")
		open := flood(t, cmd, addr, conns, nofile)
		for _, c := range open {
			c.Close()
		}
		lmStillAnswers(t, addr, 20*time.Second)
	})
	t.Run("serve-listen", func(t *testing.T) {
		tokenFile := filepath.Join(t.TempDir(), "token")
		cmd, addr := startLimited(t, bin, nofile, "serve", "--sandbox", "none", "--token-file", tokenFile, "--listen", "127.0.0.1:0")
		open := flood(t, cmd, addr, conns, nofile)
		for _, c := range open {
			c.Close()
		}
		serveStillAnswers(t, addr, tokenFile, jsonrpc.NDJSON, 20*time.Second)
	})
}
