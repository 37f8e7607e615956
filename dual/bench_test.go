package dual

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"testing"
)

// BenchmarkEngineCallResult routes one call and its result (steady state).
func BenchmarkEngineCallResult(b *testing.B) {
	e := newEngine(Config{})
	e.SolutionStarted(t0, nil)
	out := e.Line(Solution, []byte(ready), t0, nil)
	call := []byte(`{"type":"call","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","fn":"solve","args":[[1,2,3],{"k":"v"}]}`)
	res := []byte(`{"type":"result","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","value":{"answer":[4,5,6]}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(call) + len(res)))
	for b.Loop() {
		out = e.Line(Evaluator, call, t0, out[:0])
		out = e.Line(Solution, res, t0, out[:0])
	}
}

// BenchmarkValidate compares the one-pass scan with encoding/json.Valid
// (plus the map decode a naive router would need for the type and id).
func BenchmarkValidate(b *testing.B) {
	line := []byte(`{"type":"result","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","value":{"answer":[4,5,6],"text":"` +
		string(make([]byte, 0)) + `hello world hello world hello world","n":1.5e3}}`)
	b.Run("Classify", func(b *testing.B) {
		var f Frame
		b.ReportAllocs()
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			Classify(line, &f)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			json.Valid(line)
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			var m map[string]json.RawMessage
			json.Unmarshal(line, &m)
		}
	})
}

// BenchmarkRelayThroughput drives calls through a Relay over io.Pipe: the
// evaluator keeps 64 calls in flight; the solution echoes a result to each.
func BenchmarkRelayThroughput(b *testing.B) {
	evEP, ev := newFake()
	solEP, sol := newFake()
	r := NewRelay(evEP, solEP, RelayConfig{})
	wait := runRelay(context.Background(), r)
	solDone := background(func() error { return echoSolution(sol) })
	const window = 64
	b.ReportAllocs()
	b.ResetTimer()
	evDone := background(func() error {
		w := bufio.NewWriter(ev.stdout)
		sent := 0
		send := func() {
			w.WriteString(`{"type":"call","id":"` + strconv.Itoa(sent) + `","fn":"f","args":[1,2,3]}` + "\n")
			sent++
		}
		for sent < b.N && sent < window {
			send()
		}
		w.Flush()
		for got := 0; got < b.N; got++ {
			if _, err := ev.recv(); err != nil {
				return err
			}
			if sent < b.N {
				send()
				w.Flush()
			}
		}
		return ev.stdout.Close()
	})
	if err := evDone(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if _, err := wait(); err != nil {
		b.Fatal(err)
	}
	solDone()
}
