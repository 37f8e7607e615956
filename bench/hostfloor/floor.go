package main

// The floor program and the measurement itself: the raw-protocol evaluator
// and the ways it meets a program (two pipes, or through tether judge).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// raw is the floor: it reads big blocks and answers every complete line in
// them with one result line carrying the call's id, all in one write.
const raw = `#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>
static char in[1 << 16], out[1 << 17];
int main(void) {
  size_t have = 0;
  if (write(1, "{\"type\":\"ready\"}\n", 17) != 17) return 1;
  for (;;) {
    ssize_t n = read(0, in + have, sizeof in - have);
    if (n <= 0) return 0;
    have += (size_t)n;
    size_t o = 0, start = 0;
    char *nl;
    while ((nl = memchr(in + start, '\n', have - start))) {
      char *id = memmem(in + start, (size_t)(nl - in - start), "\"id\":\"", 6), *end;
      if (id && (end = memchr(id + 6, '"', (size_t)(nl - id - 6)))) {
        o += (size_t)(stpcpy(out + o, "{\"type\":\"result\",\"id\":\"") - (out + o));
        memcpy(out + o, id + 6, (size_t)(end - id - 6));
        o += (size_t)(end - id - 6);
        o += (size_t)(stpcpy(out + o, "\",\"value\":0}\n") - (out + o));
      }
      start = (size_t)(nl - in) + 1;
    }
    memmove(in, in + start, have - start);
    have -= start;
    for (size_t off = 0; off < o;) {
      ssize_t k = write(1, out + off, o - off);
      if (k <= 0) return 1;
      off += (size_t)k;
    }
  }
}
`

// measurement is what the evaluator reports: calls/s at 1 and at
// -inflight calls in flight.
type measurement struct {
	One  float64 `json:"calls_per_s_1"`
	Many float64 `json:"calls_per_s_many"`
	// The program's CPU time (user+system) per call over both phases, in
	// µs: direct runs only. On a machine shared with other work calls/s
	// follow the load; this does not.
	CPUPerCall float64 `json:"-"`
}

// evaluate makes the calls over r and w: calls at one in flight, then
// calls at inflight in flight (flushing when no answer is buffered, as an
// evaluator that keeps calls in flight does).
func evaluate(in io.Reader, out io.Writer, calls, inflight int) (measurement, error) {
	w := bufio.NewWriterSize(out, 1<<16)
	r := bufio.NewReaderSize(in, 1<<16)
	next := 0
	send := func() {
		id := strconv.Itoa(next)
		next++
		w.WriteString(`{"type":"call","id":"` + id + `","fn":"add","args":[` + id + ",1]}\n")
	}
	recv := func() error {
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return fmt.Errorf("reading an answer after %d calls: %w", next, err)
			}
			if bytes.Contains(line, []byte(`"type":"log"`)) {
				continue
			}
			if !bytes.Contains(line, []byte(`"type":"result"`)) {
				return fmt.Errorf("not a result: %.200s", line)
			}
			return nil
		}
	}
	var m measurement
	start := time.Now()
	for range calls {
		send()
		w.Flush()
		if err := recv(); err != nil {
			return m, err
		}
	}
	m.One = float64(calls) / time.Since(start).Seconds()
	start = time.Now()
	for range min(inflight, calls) {
		send()
	}
	w.Flush()
	sent := min(inflight, calls)
	for done := 0; done < calls; done++ {
		if err := recv(); err != nil {
			return m, err
		}
		if sent < calls {
			send()
			sent++
		}
		if r.Buffered() == 0 {
			w.Flush()
		}
	}
	m.Many = float64(calls) / time.Since(start).Seconds()
	return m, nil
}

// subject is one program to measure directly: argv run in dir.
type subject struct {
	name string
	dir  string
	argv []string
	env  []string
}

// direct starts s, waits for its ready line, and measures it.
func direct(s subject, calls, inflight int) (ready time.Duration, m measurement, err error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = s.dir, s.env, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, m, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, m, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, m, err
	}
	out := bufio.NewReaderSize(outPipe, 1<<16)
	line, err := out.ReadBytes('\n')
	if err != nil || !bytes.Contains(line, []byte(`"ready"`)) {
		cmd.Process.Kill()
		return 0, m, fmt.Errorf("%s: no ready line (%q, %v)", s.name, line, err)
	}
	ready = time.Since(start)
	m, err = evaluate(out, in, calls, inflight)
	if err != nil {
		cmd.Process.Kill()
	}
	in.Close()
	if werr := cmd.Wait(); werr == nil && cmd.ProcessState != nil {
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		m.CPUPerCall = float64(cpu.Nanoseconds()) / 1e3 / float64(2*calls)
	}
	return ready, m, err
}

// writeProblem makes a problem folder whose evaluator is this binary;
// solution, when not nil, is the solution's command (the raw program).
func writeProblem(dir string, calls, inflight int, solution []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// Compile limits far above the defaults: a loaded machine must not turn
	// a slow compile into a CompileError here.
	sol := map[string]any{"call_timeout_ms": 60000, "memory_limit_mb": 512,
		"compile": map[string]any{"time_limit_ms": slowCompileMs, "cpu_time_limit_ms": slowCompileMs}}
	if solution != nil {
		sol["command"] = solution
	}
	cfg := map[string]any{"title": "host floor", "runtime_config": map[string]any{
		"evaluator": map[string]any{"command": []string{self, "-role", "evaluator", "-calls", strconv.Itoa(calls),
			"-inflight", strconv.Itoa(inflight)}, "time_limit_ms": 600000},
		"solution": sol,
	}}
	js, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "problem.json"), js, 0o644)
}
