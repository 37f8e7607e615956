// Command fleet measures tether worker against tether judge run back to
// back, in one run: throughput of N aplusb submissions through a worker
// with 2 slots (Redis) against N `tether judge` runs in a loop, interleaved
// in blocks; then the broker overhead per submission (enqueue to result
// stored, minus the judge's own time for it) for Redis and the embedded
// NATS broker; and the worker's RSS idle and under load.
//
//	go build -o /tmp/tether ./cmd/tether && go run ./bench/fleet -tether /tmp/tether
//
// Needs redis-server on PATH. Numbers go to bench/RESULTS.md ("fleet").
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"

	"github.com/tether-dev/tether/supportpkg"
	"github.com/tether-dev/tether/worker/natsq"
)

var (
	bin     = flag.String("tether", "", "the tether binary (go build -o /tmp/tether ./cmd/tether)")
	n       = flag.Int("n", 200, "submissions per side of the throughput comparison")
	blocks  = flag.Int("blocks", 4, "the two sides alternate in this many blocks")
	seqN    = flag.Int("seq", 50, "sequential submissions per broker for the overhead")
	sandbox = flag.String("sandbox", "auto", "--sandbox of both")
	problem = flag.String("problem", "examples/aplusb", "problem folder")
)

func main() {
	flag.Parse()
	if *bin == "" {
		fail("pass -tether BINARY")
	}
	tmp, err := os.MkdirTemp("", "tether-fleet-bench-")
	check(err)
	cleanups = append(cleanups, func() { os.RemoveAll(tmp) })
	defer os.RemoveAll(tmp)
	var pkg bytes.Buffer
	_, err = supportpkg.Pack(*problem, &pkg)
	check(err)
	pkgURL := supportpkg.Base64URL(pkg.Bytes())

	redisAddr, stopRedis := startRedis(tmp)
	cleanups = append(cleanups, stopRedis)
	defer stopRedis()
	rc := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer rc.Close()

	w := startWorker(tmp, "redis", "--broker", "redis://"+redisAddr+"/0")
	idle := w.rss()
	fmt.Printf("worker RSS idle: %.1f MiB\n", float64(idle)/1024)

	// Throughput: blocks of loop runs and worker runs, alternating.
	// A busy machine can make a run overrun its 2 s call timeout: the
	// verdicts are counted, not required.
	var loopTime, workerTime time.Duration
	var loopAccepted, workerAccepted int
	per := *n / *blocks
	id := 0
	for b := 0; b < *blocks; b++ {
		start := time.Now()
		for i := 0; i < per; i++ {
			out, err := exec.Command(*bin, "judge", *problem, filepath.Join(*problem, "solution.py"), "--sandbox", *sandbox).CombinedOutput()
			if err != nil {
				fail(fmt.Sprintf("tether judge: %v\n%s", err, out))
			}
			if bytes.Contains(out, []byte("verdict:  Accepted")) {
				loopAccepted++
			}
		}
		loopTime += time.Since(start)

		start = time.Now()
		ctx := context.Background()
		for i := 0; i < per; i++ {
			id++
			check(rc.LPush(ctx, "noj:judge:queue", task(fmt.Sprintf("t%d", id), pkgURL)).Err())
		}
		for i := 0; i < per; i++ {
			res, err := rc.BRPop(ctx, 0, "noj:judge:results").Result()
			check(err)
			if strings.Contains(res[1], `"status":"Accepted"`) {
				workerAccepted++
			}
		}
		workerTime += time.Since(start)
	}
	peak := w.hwm()
	total := per * *blocks
	fmt.Printf("throughput, %d aplusb submissions each (sandbox %s):\n", total, *sandbox)
	fmt.Printf("  tether judge loop:            %6.1f s  (%.2f submissions/s)\n", loopTime.Seconds(), float64(total)/loopTime.Seconds())
	fmt.Printf("  tether worker, 2 slots, redis: %6.1f s  (%.2f submissions/s)  = %.2fx the loop\n",
		workerTime.Seconds(), float64(total)/workerTime.Seconds(), loopTime.Seconds()/workerTime.Seconds())
	fmt.Printf("  Accepted: loop %d/%d, worker %d/%d\n", loopAccepted, total, workerAccepted, total)
	fmt.Printf("worker RSS under load: peak %.1f MiB (VmHWM)\n", float64(peak)/1024)

	for i := 0; i < total; i++ { // the throughput phase's log lines
		w.nextJudged()
	}

	// Overhead, Redis: one submission at a time.
	redisOver := overhead("redis", w, func(i int) time.Duration {
		sid := fmt.Sprintf("r%d", i)
		ctx := context.Background()
		start := time.Now()
		check(rc.LPush(ctx, "noj:judge:queue", task(sid, pkgURL)).Err())
		_, err := rc.BRPop(ctx, 0, "noj:judge:results").Result()
		check(err)
		return time.Since(start)
	})
	w.stop()

	// Overhead, embedded NATS.
	nw := startWorker(tmp, "nats", "--broker", "embedded", "--data-dir", filepath.Join(tmp, "nats-data"), "--listen", freeAddr())
	tok, err := natsq.ReadToken(filepath.Join(tmp, "nats-data"))
	check(err)
	nb, err := natsq.Connect(context.Background(), natsq.Options{URL: "nats://" + nw.listen, Token: tok})
	check(err)
	cons, err := nb.JetStream().CreateOrUpdateConsumer(context.Background(), natsq.ResultStream,
		jetstream.ConsumerConfig{Durable: "bench", FilterSubject: natsq.ResultPrefix + "*", AckPolicy: jetstream.AckExplicitPolicy})
	check(err)
	natsOver := overhead("embedded NATS", nw, func(i int) time.Duration {
		sid := fmt.Sprintf("n%d", i)
		ctx := context.Background()
		start := time.Now()
		check(nb.Enqueue(ctx, task(sid, pkgURL), sid, 0))
		msg, err := cons.Next(jetstream.FetchMaxWait(time.Minute))
		check(err)
		d := time.Since(start)
		msg.Ack()
		return d
	})
	nb.Close()
	nw.stop()
	_, _ = redisOver, natsOver
}

// overhead runs seqN submissions one at a time and prints the latency
// minus the judge's own time (the worker's judge_ms for each).
func overhead(name string, w *workerProc, one func(i int) time.Duration) []time.Duration {
	var over []time.Duration
	for i := 0; i < *seqN; i++ {
		lat := one(i)
		judged := w.nextJudged()
		over = append(over, lat-time.Duration(judged*float64(time.Millisecond)))
	}
	sort.Slice(over, func(a, b int) bool { return over[a] < over[b] })
	p := func(q float64) time.Duration { return over[int(q*float64(len(over)-1)+0.5)] }
	fmt.Printf("broker overhead, %s (%d sequential submissions; enqueue to result stored, minus the judge's time): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
		name, len(over), ms(p(0.5)), ms(p(0.99)), ms(over[len(over)-1]))
	return over
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func task(id, url string) []byte {
	b, _ := json.Marshal(map[string]any{
		"submission_id": id, "problem_id": "aplusb", "language": "python", "download_url": url,
		"code": mustRead(filepath.Join(*problem, "solution.py")),
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": "noj-evaluator-python", "command": "python3 evaluate.py", "time_limit_ms": 20000, "memory_limit_mb": 256},
			"solution":  map[string]any{"image": "noj-solution-python", "call_timeout_ms": 2000, "memory_limit_mb": 256},
		},
	})
	return b
}

func mustRead(p string) string {
	b, err := os.ReadFile(p)
	check(err)
	return string(b)
}

type workerProc struct {
	cmd    *exec.Cmd
	listen string
	judged chan float64 // judge_ms of each "judged" line
	done   chan struct{}
}

func startWorker(tmp, name string, args ...string) *workerProc {
	w := &workerProc{judged: make(chan float64, 100000), done: make(chan struct{})}
	for i, a := range args {
		if a == "--listen" {
			w.listen = args[i+1]
		}
	}
	dir := filepath.Join(tmp, name)
	full := append([]string{"worker", "--concurrency", "2", "--sandbox", *sandbox, "--log-format", "json",
		"--work-dir", filepath.Join(dir, "work"), "--cache-dir", filepath.Join(dir, "cache")}, args...)
	w.cmd = exec.Command(*bin, full...)
	stderr, err := w.cmd.StderrPipe()
	check(err)
	check(w.cmd.Start())
	cleanups = append(cleanups, func() { w.cmd.Process.Kill() })
	ready := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			switch m["msg"] {
			case "worker ready":
				once.Do(func() { close(ready) })
			case "judged":
				if v, ok := m["judge_ms"].(float64); ok {
					w.judged <- v
				}
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(time.Minute):
		fail("worker " + name + " not ready in a minute")
	}
	return w
}

func (w *workerProc) nextJudged() float64 {
	select {
	case v := <-w.judged:
		return v
	case <-time.After(time.Minute):
		fail("no judged log line")
	}
	return 0
}

func (w *workerProc) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", w.cmd.Process.Pid))
	check(err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

func (w *workerProc) rss() int64 { return w.status("VmRSS") }
func (w *workerProc) hwm() int64 { return w.status("VmHWM") }

func (w *workerProc) stop() {
	w.cmd.Process.Signal(os.Interrupt)
	<-w.done
	w.cmd.Wait()
}

func startRedis(tmp string) (string, func()) {
	addr := freeAddr()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tmp)
	check(cmd.Start())
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			fail("redis-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return addr, func() { cmd.Process.Kill(); cmd.Wait() }
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer l.Close()
	return l.Addr().String()
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

// cleanups stop what the run started (workers, redis-server, the temp
// dir), newest first, also when it fails.
var cleanups []func()

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "fleet:", msg)
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	os.Exit(1)
}
