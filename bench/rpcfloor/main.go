// Command rpcfloor measures a JSON-RPC server over real stdio, from a
// separate client process, against its floor: a minimal Go server that
// hand-parses `subtract` with blocking reads and writes and no JSON library.
//
//	go build -o /tmp/calc ./examples/jsonrpc-calc
//	go run ./bench/rpcfloor -server /tmp/calc -calls 20000 -rounds 3
//
// Run with -role floor it is the floor server; otherwise it is the client.
// For each server, interleaved: the mean round trip with one call in
// flight, and calls per second with -inflight calls in flight. Every run is
// bounded and talks only over pipes.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/tether-dev/tether/bench/internal/driver"
)

func main() {
	role := flag.String("role", "", "floor (internal: serve subtract by hand)")
	server := flag.String("server", "", "the JSON-RPC server binary to measure, speaking newline-delimited JSON on stdio")
	load := driver.LoadFlags()
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	flag.Parse()
	var err error
	switch {
	case *role == "floor":
		err = floor(os.Stdin, os.Stdout)
	case *role != "":
		err = fmt.Errorf("-role %q: want floor", *role)
	case *server == "":
		err = fmt.Errorf("-server: name the server binary (go build -o /tmp/calc ./examples/jsonrpc-calc)")
	default:
		err = drive(*server, *load, *rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rpcfloor:", err)
		os.Exit(1)
	}
}

// floor answers {"jsonrpc":"2.0","method":"subtract","params":[A,B],"id":N}
// with A-B for integers, one blocking write per answer.
func floor(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 1<<16)
	buf := make([]byte, 0, 128)
	for {
		line, err := r.ReadSlice('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := bytes.Index(line, []byte(`"params":[`))
		q := bytes.Index(line, []byte(`"id":`))
		if p < 0 || q < 0 {
			return fmt.Errorf("floor: cannot read %q", line)
		}
		nums := line[p+10:]
		nums = nums[:bytes.IndexByte(nums, ']')]
		comma := bytes.IndexByte(nums, ',')
		a, _ := strconv.Atoi(string(nums[:comma]))
		b, _ := strconv.Atoi(string(nums[comma+1:]))
		id := line[q+5:]
		id = id[:bytes.IndexAny(id, ",}")]
		buf = append(buf[:0], `{"jsonrpc":"2.0","result":`...)
		buf = strconv.AppendInt(buf, int64(a-b), 10)
		buf = append(buf, `,"id":`...)
		buf = append(buf, id...)
		buf = append(buf, "}\n"...)
		if _, err := out.Write(buf); err != nil {
			return err
		}
	}
}

func measure(argv []string, load driver.Load) (driver.Measurement, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return driver.Measurement{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return driver.Measurement{}, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return driver.Measurement{}, err
	}
	defer cmd.Wait()
	defer stdin.Close()
	id := 0 // JSON-RPC ids run on across both phases
	call := func(w *bufio.Writer, _ int) {
		id++
		w.WriteString(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":` + strconv.Itoa(id) + "}\n")
	}
	answer := func(line []byte) error {
		if !bytes.Contains(line, []byte(`"result":19`)) {
			return fmt.Errorf("unexpected answer %q", line)
		}
		return nil
	}
	return driver.Measure(bufio.NewWriter(stdin), bufio.NewReaderSize(stdout, 1<<16), load, call, answer)
}

func drive(server string, load driver.Load, rounds int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	fmt.Printf("%d calls per measurement, %d in flight for throughput, %d rounds\n", load.Calls, load.InFlight, rounds)
	fmt.Printf("%-6s %-7s %14s %14s\n", "round", "server", "round trip", "calls/s")
	for round := 1; round <= rounds; round++ {
		fl, err := measure([]string{self, "-role", "floor"}, load)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		sv, err := measure([]string{server}, load)
		if err != nil {
			return fmt.Errorf("%s: %w", server, err)
		}
		fmt.Printf("%-6d %-7s %11.1f µs %14.0f\n", round, "floor", float64(fl.RoundTrip.Nanoseconds())/1e3, fl.CallsPerSec)
		fmt.Printf("%-6d %-7s %11.1f µs %14.0f   (%.2fx the round trip, %.0f%% of the throughput)\n", round, "server",
			float64(sv.RoundTrip.Nanoseconds())/1e3, sv.CallsPerSec,
			float64(sv.RoundTrip)/float64(fl.RoundTrip), 100*sv.CallsPerSec/fl.CallsPerSec)
	}
	return nil
}
