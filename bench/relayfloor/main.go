// Command relayfloor measures the judge relay against its floors: the same
// raw-protocol Go evaluator and solution joined directly by two pipes
// (direct), joined through the simplest relay, a line forwarder (a
// goroutine each way that forwards whole lines, as many as each read
// brings, with no parsing), and joined through `tether judge --sandbox
// none`, the three interleaved in every round; then the medians. Direct is
// the limit of any join; the forwarder does a relay's I/O (four pipe hops
// a round trip, not two) and nothing else, the floor of a plain relay.
//
//	go build -o /tmp/tether ./cmd/tether
//	go run ./bench/relayfloor -tether /tmp/tether -calls 20000 -rounds 5
//
// One binary plays every part: run with -role evaluator or -role solution
// it is a side (tether starts it through a problem folder it writes to a
// temp dir; the driver starts it itself for direct and forwarder);
// otherwise it is the driver. The evaluator measures: with one call in
// flight, the mean round trip; with -inflight calls in flight, calls per
// second. It reports both on stderr (direct, forwarder) and in its
// result's details (tether). Every run is bounded and talks only over pipes.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tether-dev/tether/bench/internal/driver"
)

// measurement is what the evaluator reports.
type measurement struct {
	RoundTripNs float64 `json:"round_trip_ns"` // one call in flight, mean
	CallsPerSec float64 `json:"calls_per_s"`   // -inflight calls in flight
}

func main() {
	role := flag.String("role", "", "evaluator or solution (internal)")
	tether := flag.String("tether", "", "the tether binary to measure (required for the driver); several, comma-separated, are measured one after another in each round")
	load := driver.LoadFlags()
	rounds := flag.Int("rounds", 5, "interleaved rounds of direct, forwarder and tether")
	flag.Parse()
	var err error
	switch *role {
	case "evaluator":
		err = evaluator(os.Stdin, os.Stdout, *load)
	case "solution":
		err = solution(os.Stdin, os.Stdout)
	case "":
		err = drive(*tether, *load, *rounds)
	default:
		err = fmt.Errorf("-role %q: want evaluator or solution", *role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "relayfloor:", err)
		os.Exit(1)
	}
}

// solution answers every call with its first argument, after a ready frame.
func solution(in io.Reader, out io.Writer) error {
	w := bufio.NewWriter(out)
	r := bufio.NewReaderSize(in, 1<<16)
	w.WriteString(`{"type":"ready"}` + "\n")
	w.Flush()
	for {
		line, err := r.ReadSlice('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		// {"type":"call","id":"N","fn":"echo","args":[N]}: the id is the
		// first quoted value after "id":.
		i := bytes.Index(line, []byte(`"id":"`))
		if i < 0 {
			continue // the evaluator's result line, in the direct set-up
		}
		id := line[i+6:]
		id = id[:bytes.IndexByte(id, '"')]
		w.WriteString(`{"type":"result","id":"`)
		w.Write(id)
		w.WriteString(`","value":`)
		w.Write(id)
		w.WriteString("}\n")
		if r.Buffered() == 0 {
			w.Flush()
		}
	}
}

// evaluator makes the calls and reports the measurement.
func evaluator(in io.Reader, out io.Writer, load driver.Load) error {
	w := bufio.NewWriter(out)
	call := func(w *bufio.Writer, n int) {
		id := strconv.Itoa(n)
		w.WriteString(`{"type":"call","id":"` + id + `","fn":"echo","args":[` + id + "]}\n")
	}
	result := func(line []byte) error {
		if !bytes.Contains(line, []byte(`"type":"result"`)) {
			return fmt.Errorf("not a result: %.200s", line)
		}
		return nil
	}
	d, err := driver.Measure(w, bufio.NewReaderSize(in, 1<<16), load, call, result)
	if err != nil {
		return err
	}
	m := measurement{RoundTripNs: float64(d.RoundTrip.Nanoseconds()), CallsPerSec: d.CallsPerSec}
	js, _ := json.Marshal(m)
	fmt.Fprintln(os.Stderr, string(js))
	fmt.Fprintf(w, "---RESULT---\n{\"status\":\"Accepted\",\"score\":100,\"details\":%s}\n", js)
	return w.Flush()
}

func drive(tethers string, load driver.Load, rounds int) error {
	if tethers == "" {
		return fmt.Errorf("-tether: name the tether binary to measure (go build -o /tmp/tether ./cmd/tether)")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	problem, err := writeProblem(self, load)
	if err != nil {
		return err
	}
	defer os.RemoveAll(problem)
	fmt.Printf("%d calls per measurement, %d in flight for throughput, %d rounds\n", load.Calls, load.InFlight, rounds)
	fmt.Printf("%-6s %-10s %14s %14s\n", "round", "path", "round trip", "calls/s")
	binaries := strings.Split(tethers, ",")
	all := make([][]measurement, 2+len(binaries)) // direct, forwarder, each tether
	for round := 1; round <= rounds; round++ {
		direct, err := runDirect(self, load)
		if err != nil {
			return fmt.Errorf("direct: %w", err)
		}
		fwd, err := runForwarder(self, load)
		if err != nil {
			return fmt.Errorf("forwarder: %w", err)
		}
		all[0], all[1] = append(all[0], direct), append(all[1], fwd)
		for i, tether := range binaries {
			relayed, err := driver.Judged[measurement](tether, problem, filepath.Join(problem, "solution.txt"))
			if err != nil {
				return fmt.Errorf("%s: %w", tether, err)
			}
			all[2+i] = append(all[2+i], relayed)
		}
		for i := range binaries {
			printRow(fmt.Sprint(round), label(binaries, i), direct, fwd, all[2+i][round-1], i == 0)
		}
	}
	median := func(ms []measurement) measurement {
		rt := func(m measurement) float64 { return m.RoundTripNs }
		cps := func(m measurement) float64 { return m.CallsPerSec }
		mid := func(f func(measurement) float64) float64 {
			v := make([]float64, len(ms))
			for i, m := range ms {
				v[i] = f(m)
			}
			slices.Sort(v)
			if n := len(v); n%2 == 0 {
				return (v[n/2-1] + v[n/2]) / 2
			}
			return v[len(v)/2]
		}
		return measurement{RoundTripNs: mid(rt), CallsPerSec: mid(cps)}
	}
	for i := range binaries {
		printRow("median", label(binaries, i), median(all[0]), median(all[1]), median(all[2+i]), i == 0)
	}
	return nil
}

// label names the i-th tether binary in the table: "tether" when there is
// one, else its file name.
func label(binaries []string, i int) string {
	if len(binaries) == 1 {
		return "tether"
	}
	return filepath.Base(binaries[i])
}

// printRow prints one round's (or the medians') three measurements and
// tether's ratios to the floors.
func printRow(round, name string, direct, fwd, relayed measurement, floors bool) {
	row := func(path string, m measurement) {
		fmt.Printf("%-6s %-10s %11.1f µs %14.0f", round, path, m.RoundTripNs/1e3, m.CallsPerSec)
	}
	if floors {
		row("direct", direct)
		fmt.Println()
		row("forwarder", fwd)
		fmt.Printf("   (%.2fx direct's round trip, %.0f%% of its throughput)\n",
			fwd.RoundTripNs/direct.RoundTripNs, 100*fwd.CallsPerSec/direct.CallsPerSec)
	}
	row(name, relayed)
	fmt.Printf("   (%.2fx direct's round trip, %.2fx the forwarder's; %.0f%% of direct's throughput, %.2fx the forwarder's)\n",
		relayed.RoundTripNs/direct.RoundTripNs, relayed.RoundTripNs/fwd.RoundTripNs,
		100*relayed.CallsPerSec/direct.CallsPerSec, relayed.CallsPerSec/fwd.CallsPerSec)
}

func sideArgs(self, role string, load driver.Load) []string {
	return append([]string{self, "-role", role}, load.Args()...)
}

// writeProblem makes a problem folder whose two sides are this binary.
func writeProblem(self string, load driver.Load) (string, error) {
	dir, err := os.MkdirTemp("", "relayfloor-")
	if err != nil {
		return "", err
	}
	cfg := map[string]any{"title": "relay floor", "runtime_config": map[string]any{
		"evaluator": map[string]any{"command": sideArgs(self, "evaluator", load), "time_limit_ms": 600000},
		"solution":  map[string]any{"command": sideArgs(self, "solution", load), "call_timeout_ms": 60000},
	}}
	js, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), js, 0o644); err != nil {
		return "", err
	}
	// The solution's own file is not read by this solution; tether wants one.
	return dir, os.WriteFile(filepath.Join(dir, "solution.txt"), []byte("raw protocol\n"), 0o644)
}

// runDirect joins the two sides by two pipes, as the floor.
func runDirect(self string, load driver.Load) (measurement, error) {
	evIn, solOut, err := os.Pipe()
	if err != nil {
		return measurement{}, err
	}
	solIn, evOut, err := os.Pipe()
	if err != nil {
		return measurement{}, err
	}
	wait, err := startSides(self, load, evIn, evOut, solIn, solOut, evIn)
	if err != nil {
		return measurement{}, err
	}
	return wait()
}

// runForwarder joins the two sides through this process, the simplest
// relay doing tether's I/O: a pipe to and from each side, and a goroutine
// each way forwarding whole lines (forwardLines), with no parsing and no
// routing.
func runForwarder(self string, load driver.Load) (measurement, error) {
	var p [8]*os.File // read and write ends: ev stdin, ev stdout, sol stdin, sol stdout
	for i := 0; i < len(p); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			return measurement{}, err
		}
		p[i], p[i+1] = r, w
	}
	evIn, toEv, fromEv, evOut := p[0], p[1], p[2], p[3]
	solIn, toSol, fromSol, solOut := p[4], p[5], p[6], p[7]
	wait, err := startSides(self, load, evIn, evOut, solIn, solOut, fromSol)
	if err != nil {
		for _, f := range []*os.File{toEv, fromEv, toSol, fromSol} {
			f.Close()
		}
		return measurement{}, err
	}
	// Each copy ends at its source's EOF (the side exited) and then closes
	// the other side's stdin, as a relay would.
	copied := make(chan struct{}, 2)
	forward := func(dst, src *os.File) {
		forwardLines(dst, src)
		dst.Close()
		src.Close()
		copied <- struct{}{}
	}
	go forward(toSol, fromEv)
	go forward(toEv, fromSol)
	m, err := wait()
	<-copied
	<-copied
	return m, err
}

// forwardLines writes into dst the whole lines read from src, all those
// one read brings in one write, and keeps a line's start until its end
// comes; it returns at src's end or a failed write. Lines over the 64 KiB
// buffer go out in pieces (this benchmark's lines are short).
func forwardLines(dst io.Writer, src io.Reader) {
	buf := make([]byte, 64<<10)
	held := 0 // buf[:held] is the start of a line
	for {
		n, err := src.Read(buf[held:])
		end := held + n
		last := bytes.LastIndexByte(buf[held:end], '\n') + 1
		if last > 0 {
			last += held
		} else if end == len(buf) {
			last = end // a line longer than the buffer
		}
		if last > 0 {
			if _, werr := dst.Write(buf[:last]); werr != nil {
				return
			}
			held = copy(buf, buf[last:end])
		} else {
			held = end
		}
		if err != nil {
			if held > 0 {
				dst.Write(buf[:held])
			}
			return
		}
	}
}

// startSides starts the solution on solIn/solOut, drops its ready line
// from ready, then starts the evaluator on evIn/evOut, and closes those
// four ends in this process. wait waits for both sides and returns the
// evaluator's measurement.
func startSides(self string, load driver.Load, evIn, evOut, solIn, solOut, ready *os.File) (wait func() (measurement, error), err error) {
	ev := exec.Command(self, sideArgs(self, "evaluator", load)[1:]...)
	sol := exec.Command(self, sideArgs(self, "solution", load)[1:]...)
	var report bytes.Buffer
	ev.Stdin, ev.Stdout, ev.Stderr = evIn, evOut, &report
	sol.Stdin, sol.Stdout, sol.Stderr = solIn, solOut, os.Stderr
	defer func() {
		for _, f := range []*os.File{evIn, evOut, solIn, solOut} {
			f.Close()
		}
	}()
	if err := sol.Start(); err != nil {
		return nil, err
	}
	// The evaluator waits for nothing: the solution's ready line is the
	// first thing it reads, so drop it before the clock starts.
	line := make([]byte, len(`{"type":"ready"}`+"\n"))
	if _, err := io.ReadFull(ready, line); err != nil {
		sol.Process.Kill()
		sol.Wait()
		return nil, fmt.Errorf("reading the solution's ready line: %w", err)
	}
	if err := ev.Start(); err != nil {
		sol.Process.Kill()
		sol.Wait()
		return nil, err
	}
	return func() (measurement, error) {
		if err := ev.Wait(); err != nil {
			sol.Process.Kill()
			sol.Wait()
			return measurement{}, fmt.Errorf("evaluator: %w: %s", err, report.String())
		}
		sol.Wait()
		var m measurement
		line := bytes.TrimSpace(report.Bytes())
		if i := bytes.LastIndexByte(line, '\n'); i >= 0 {
			line = line[i+1:]
		}
		return m, json.Unmarshal(line, &m)
	}, nil
}
