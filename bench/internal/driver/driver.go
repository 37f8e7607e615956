// Package driver makes the calls of a line-protocol benchmark (relayfloor,
// rpcfloor): one call in flight for the mean round trip, then many for
// calls per second; and runs its problem through tether judge (Judged).
package driver

import (
	"bufio"
	"flag"
	"fmt"
	"strconv"
	"time"
)

// Load is the size of a measurement: Calls calls, first one at a time,
// then InFlight of them at once.
type Load struct{ Calls, InFlight int }

// LoadFlags defines -calls and -inflight, which set the returned Load, on
// the program's flag set.
func LoadFlags() *Load {
	l := new(Load)
	flag.IntVar(&l.Calls, "calls", 20000, "calls per measurement")
	flag.IntVar(&l.InFlight, "inflight", 64, "calls in flight for the throughput measurement")
	return l
}

// Args are the flags that give l to another run of the program.
func (l Load) Args() []string {
	return []string{"-calls", strconv.Itoa(l.Calls), "-inflight", strconv.Itoa(l.InFlight)}
}

// Measurement is what Measure measured.
type Measurement struct {
	RoundTrip   time.Duration // one call in flight, mean
	CallsPerSec float64       // inflight calls in flight
}

// Measure makes load.Calls calls one at a time, then as many again keeping
// load.InFlight of them in flight. call writes the call numbered n (from 0 in
// each phase) to w, which Measure flushes; answer checks one answer line
// read from r. An answer that does not come or does not pass ends it.
func Measure(w *bufio.Writer, r *bufio.Reader, load Load, call func(w *bufio.Writer, n int), answer func(line []byte) error) (Measurement, error) {
	calls, inflight := load.Calls, load.InFlight
	sent := 0
	send := func() {
		call(w, sent)
		sent++
	}
	recv := func() error {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("reading an answer after %d calls: %w", sent, err)
		}
		return answer(line)
	}
	var m Measurement
	start := time.Now()
	for range calls {
		send()
		if err := w.Flush(); err != nil {
			return m, err
		}
		if err := recv(); err != nil {
			return m, err
		}
	}
	m.RoundTrip = time.Since(start) / time.Duration(max(calls, 1))

	start = time.Now()
	sent = 0
	for range min(inflight, calls) {
		send()
	}
	w.Flush()
	for range calls {
		if err := recv(); err != nil {
			return m, err
		}
		if sent < calls {
			send()
		}
		if r.Buffered() == 0 {
			w.Flush()
		}
	}
	m.CallsPerSec = float64(calls) / time.Since(start).Seconds()
	return m, nil
}
