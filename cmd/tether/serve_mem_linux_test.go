//go:build linux

package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/jsonrpc"
)

// peakRSS is the peak resident set (VmHWM) of process pid, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// sendBigFrames opens n connections to addr and sends on each a frame
// declaring size bytes, then all of them; a connection the server closes
// stops early. It returns when every sender has finished.
func sendBigFrames(t *testing.T, addr string, n, size int) {
	t.Helper()
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = 'x'
	}
	var wg sync.WaitGroup
	for range n {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(2 * time.Minute))
			if _, err := nc.Write(binary.BigEndian.AppendUint32(nil, uint32(size))); err != nil {
				return
			}
			for sent := 0; sent < size; sent += len(chunk) {
				if _, err := nc.Write(chunk[:min(len(chunk), size-sent)]); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
}

// 30 connections each sending a 64 MiB frame leave the server under 512 MiB
// and answering (issue 17, item 5: ~2 GB in `lm serve` and in
// `serve --framing length`, as each declared length was allocated at once
// and the bytes held were not capped).
func TestServersBoundMemoryOfBigFrames(t *testing.T) {
	bin := sbxTetherBinary(t)
	const conns, size, limit = 30, 64 << 20, 512 << 20
	t.Run("lm-serve", func(t *testing.T) {
		cmd, addr := startLimited(t, bin, 4096, "lm", "serve", "--listen", "127.0.0.1:0")
		sendBigFrames(t, addr, conns, size)
		rss := peakRSS(t, cmd.Process.Pid)
		t.Logf("tether lm serve: peak RSS %d MiB after %d frames of %d MiB", rss>>20, conns, size>>20)
		if rss > limit {
			t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, limit>>20)
		}
		lmStillAnswers(t, addr, 30*time.Second)
	})
	t.Run("serve-length", func(t *testing.T) {
		tokenFile := filepath.Join(t.TempDir(), "token")
		cmd, addr := startLimited(t, bin, 4096, "serve", "--sandbox", "none", "--token-file", tokenFile, "--listen", "127.0.0.1:0", "--framing", "length")
		sendBigFrames(t, addr, conns, size)
		rss := peakRSS(t, cmd.Process.Pid)
		t.Logf("tether serve --framing length: peak RSS %d MiB after %d frames of %d MiB", rss>>20, conns, size>>20)
		if rss > limit {
			t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, limit>>20)
		}
		serveStillAnswers(t, addr, tokenFile, jsonrpc.LengthPrefixed, 30*time.Second)
	})
}

// 150 clients each sending all but the last byte of a 4 MiB body leave
// `tether serve --http` under 512 MiB and answering (issue 17, item 5: 865
// MB, as each body was read whole before the concurrency limit applied,
// with no timeout).
func TestServeHTTPBoundsMemoryOfSlowBodies(t *testing.T) {
	bin := sbxTetherBinary(t)
	const clients, size, limit = 150, 4 << 20, 512 << 20
	tokenFile := filepath.Join(t.TempDir(), "token")
	cmd, addr := startLimited(t, bin, 4096, "serve", "--sandbox", "none", "--token-file", tokenFile, "--http", "127.0.0.1:0")
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	auth := "Bearer " + strings.TrimSpace(string(token))
	body := make([]byte, size-1)
	for i := range body {
		body[i] = ' '
	}
	var wg sync.WaitGroup
	var conns []net.Conn
	for range clients {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, nc)
		wg.Go(func() {
			nc.SetDeadline(time.Now().Add(2 * time.Minute))
			head := fmt.Sprintf("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", auth, size)
			if _, err := nc.Write([]byte(head)); err != nil {
				return
			}
			nc.Write(body) // all but the last byte; the server may cut it off
		})
	}
	wg.Wait()
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	rss := peakRSS(t, cmd.Process.Pid)
	t.Logf("tether serve --http: peak RSS %d MiB with %d bodies of %d MiB held open", rss>>20, clients, size>>20)
	if rss > limit {
		t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, limit>>20)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(`{"jsonrpc":"2.0","method":"tether.version","id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", auth)
	client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("after the slow bodies: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the slow bodies: HTTP %d", resp.StatusCode)
	}
}
