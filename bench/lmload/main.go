// Command lmload is the LM handler's load generator: the same closed-loop
// clients against tether's handler, rlm's LMHandler and a bare Go server
// that only frames a canned answer (this machine's ceiling for the protocol),
// then tether with connection reuse, then one large batch on a slow backend.
//
//	go run ./bench/lmload -rlm-python .venv-lm/bin/python
//
// tether's handler and the bare server run in this process (sharing its
// CPUs with the clients); rlm's handler runs in its own Python process.
// Every loop is bounded by -duration and the tool stops by itself; it only
// talks to 127.0.0.1. The bare server and tether's handler alternate for
// -rounds rounds (which goes first alternates too), so a machine shared with
// other work weighs on both alike; the ratio of each round and their median
// are printed after the table.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
	"github.com/tether-dev/tether/wire"
)

func main() {
	clients := flag.Int("clients", 64, "concurrent clients")
	duration := flag.Duration("duration", 10*time.Second, "length of each load run")
	rlmPython := flag.String("rlm-python", os.Getenv("TETHER_RLM_PYTHON"), "python of a venv with rlms==0.1.3 (empty: skip rlm)")
	batchSize := flag.Int("batch", 1000, "prompts in the batch run")
	batchDelay := flag.Duration("batch-delay", 50*time.Millisecond, "backend delay in the batch run")
	rounds := flag.Int("rounds", 3, "rounds of the bare server and tether's handler, alternating")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the new-connection rounds to this file")
	flag.Parse()

	tetherAddr, stopTether := serveTether(&backend.Echo{}, nil)
	defer stopTether()
	bareAddr, stopBare := serveBare()
	defer stopBare()

	fmt.Printf("%d clients, %s per run, one request per connection unless noted\n\n", *clients, *duration)
	fmt.Printf("| server | requests/s | requests | errors | p50 | p99 | p99.9 | max | CPU per request |\n|---|---|---|---|---|---|---|---|---|\n")
	stopProfile := startProfile(*cpuProfile)
	var ratios []float64
	for i := range max(*rounds, 1) {
		var bare, tether float64
		if i%2 == 0 {
			bare = run("bare Go echo (ceiling)", bareAddr, *clients, *duration, false)
			tether = run("tether lm handler", tetherAddr, *clients, *duration, false)
		} else {
			tether = run("tether lm handler", tetherAddr, *clients, *duration, false)
			bare = run("bare Go echo (ceiling)", bareAddr, *clients, *duration, false)
		}
		ratios = append(ratios, tether/bare)
	}
	stopProfile()
	if *rlmPython != "" {
		addr, stop, err := startRLM(*rlmPython)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rlm:", err)
			os.Exit(1)
		}
		run("rlm LMHandler 0.1.3", addr, *clients, *duration, false)
		stop()
	}
	run("tether lm handler, connection reuse", tetherAddr, *clients, *duration, true)

	fmt.Printf("\ntether / bare, new connection per request, by round:")
	for _, r := range ratios {
		fmt.Printf(" %.1f%%", 100*r)
	}
	slices.Sort(ratios)
	fmt.Printf("; median %.1f%%\n", 100*ratios[len(ratios)/2])

	slowAddr, stopSlow := serveTether(&backend.Echo{Delay: *batchDelay}, &lm.Options{BatchConcurrency: 16, MaxInFlight: 16})
	defer stopSlow()
	batch(slowAddr, *batchSize, *batchDelay)
}

func serveTether(b lm.Backend, opts *lm.Options) (string, func()) {
	ln, err := lm.Listen(context.Background(), "127.0.0.1:0")
	must(err)
	srv := lm.NewServer(lm.SingleBackend("echo", b), opts)
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	return ln.Addr().String(), func() { srv.Close(); <-done }
}

// serveBare answers every frame with the same completion, doing nothing else.
func serveBare() (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	answer := []byte(`{"chat_completion":{"root_model":"echo","prompt":"hello","response":"hello","usage_summary":{"model_usage_summaries":{"echo":{"total_calls":1,"total_input_tokens":1,"total_output_tokens":1}}},"execution_time":1e-06},"chat_completions":null,"error":null}`)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				fr, fw := wire.NewFrameReader(c, 0), wire.NewFrameWriter(c, 0)
				for {
					if _, err := fr.ReadFrame(); err != nil {
						return
					}
					if fw.WriteFrame(answer) != nil {
						return
					}
				}
			})
		}
	})
	return ln.Addr().String(), func() { ln.Close(); wg.Wait() }
}

func startRLM(py string) (string, func(), error) {
	cmd := exec.Command(py, "lm/testdata/rlm_handler.py")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return "", nil, fmt.Errorf("no port: %w", err)
	}
	return net.JoinHostPort("127.0.0.1", strings.TrimSpace(line)), func() { stdin.Close(); cmd.Wait() }, nil
}

var request = []byte(`{"prompt": "hello", "depth": 0}`)

type result struct {
	lat  []time.Duration
	errs int
}

// startProfile starts a CPU profile into path (none when path is ""); the
// function it returns stops it.
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	must(err)
	must(pprof.StartCPUProfile(f))
	return func() { pprof.StopCPUProfile(); must(f.Close()) }
}

// run drives clients closed-loop against addr for d, prints one table row
// and returns the requests per second.
func run(name, addr string, clients int, d time.Duration, reuse bool) float64 {
	deadline := time.Now().Add(d)
	results := make([]result, clients)
	var wg sync.WaitGroup
	start, cpu0 := time.Now(), cpuTime()
	for i := range clients {
		wg.Go(func() {
			r := &results[i]
			var c net.Conn
			var fr *wire.FrameReader
			var fw *wire.FrameWriter
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if c == nil {
					conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
					if err != nil {
						r.errs++
						continue
					}
					c, fr, fw = conn, wire.NewFrameReader(conn, 0), wire.NewFrameWriter(conn, 0)
				}
				c.SetDeadline(time.Now().Add(5 * time.Second))
				ok := fw.WriteFrame(request) == nil
				var payload []byte
				if ok {
					var err error
					payload, err = fr.ReadFrame()
					ok = err == nil
				}
				if ok {
					var resp struct {
						Error          *string         `json:"error"`
						ChatCompletion json.RawMessage `json:"chat_completion"`
					}
					ok = json.Unmarshal(payload, &resp) == nil && resp.Error == nil && len(resp.ChatCompletion) > 4
				}
				if !ok || !reuse {
					c.Close()
					c = nil
				}
				if !ok {
					r.errs++
					continue
				}
				r.lat = append(r.lat, time.Since(t0))
			}
			if c != nil {
				c.Close()
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	var all []time.Duration
	errs := 0
	for _, r := range results {
		all = append(all, r.lat...)
		errs += r.errs
	}
	slices.Sort(all)
	q := func(p float64) string {
		if len(all) == 0 {
			return "-"
		}
		return fmtDur(all[min(len(all)-1, int(math.Ceil(p*float64(len(all))))-1)])
	}
	rate := float64(len(all)) / elapsed.Seconds()
	perReq := "-"
	if len(all) > 0 {
		perReq = fmt.Sprintf("%.1f µs", float64(cpu.Microseconds())/float64(len(all)))
	}
	fmt.Printf("| %s | %.0f | %d | %d | %s | %s | %s | %s | %s |\n", name, rate, len(all), errs,
		q(0.50), q(0.99), q(0.999), q(1), perReq)
	return rate
}

func batch(addr string, n int, delay time.Duration) {
	cl, err := lm.NewClient(addr, nil)
	must(err)
	prompts := make([]string, n)
	for i := range prompts {
		prompts[i] = fmt.Sprintf("prompt %d", i)
	}
	start := time.Now()
	comps, err := cl.QueryBatch(context.Background(), prompts, "")
	elapsed := time.Since(start)
	must(err)
	ideal := time.Duration(math.Ceil(float64(n)/16)) * delay
	fmt.Printf("\nbatch of %d prompts, backend delay %s, concurrency 16: %s for %d completions; ideal ⌈%d/16⌉×%s = %s; overhead %+.2f%%\n",
		n, delay, fmtDur(elapsed), len(comps), n, delay, ideal, 100*(elapsed.Seconds()/ideal.Seconds()-1))
}

// cpuTime is the CPU time this process has used, user and system: the
// clients' and the server's. Another tenant of the machine slows a run's
// requests/s but hardly its CPU time per request, so the difference of
// that between the bare server and tether's is the handler's own cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fmtDur(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "lmload:", err)
		os.Exit(1)
	}
}
