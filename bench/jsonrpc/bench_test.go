package jsonrpcbench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"sync"
	"testing"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	sgrpc "github.com/sourcegraph/jsonrpc2"

	"github.com/tether-dev/tether/jsonrpc"
)

// Every peer serves "add" {"A":int,"B":int} -> int over one net.Pipe with
// newline-delimited JSON, and is called with the same params value.
type addParams struct{ A, B int }

var params = &addParams{A: 40, B: 2}

// peer is one client, connected to its server, plus how to stop both.
type peer struct {
	call  func(ctx context.Context) (int, error)
	batch func(ctx context.Context, n int) error // nil when unsupported
	stop  func()
}

func newTether() peer {
	a, b := net.Pipe()
	mux := jsonrpc.NewMux()
	jsonrpc.Register(mux, "add", func(_ context.Context, p addParams) (int, error) { return p.A + p.B, nil })
	server := jsonrpc.NewConn(jsonrpc.NDJSON(a, a, 0), &jsonrpc.Options{Handler: mux, MaxConcurrent: 64, MaxQueue: 1024})
	client := jsonrpc.NewConn(jsonrpc.NDJSON(b, b, 0), nil)
	return peer{
		call: func(ctx context.Context) (int, error) {
			var n int
			err := client.Call(ctx, "add", params, &n)
			return n, err
		},
		batch: func(ctx context.Context, n int) error {
			calls := make([]jsonrpc.BatchCall, n)
			for i := range calls {
				calls[i] = jsonrpc.BatchCall{Method: "add", Params: params}
			}
			results, err := client.Batch(ctx, calls)
			if err == nil && string(results[n-1].Result) != "42" {
				err = fmt.Errorf("batch result %s", results[n-1].Result)
			}
			return err
		},
		stop: func() { client.Close(); server.Close() },
	}
}

func newJrpc2() peer {
	a, b := net.Pipe()
	srv := jrpc2.NewServer(handler.Map{
		"add": handler.New(func(_ context.Context, p addParams) (int, error) { return p.A + p.B, nil }),
	}, &jrpc2.ServerOptions{Concurrency: 64}).Start(channel.Line(a, a))
	client := jrpc2.NewClient(channel.Line(b, b), nil)
	return peer{
		call: func(ctx context.Context) (int, error) {
			var n int
			err := client.CallResult(ctx, "add", params, &n)
			return n, err
		},
		batch: func(ctx context.Context, n int) error {
			specs := make([]jrpc2.Spec, n)
			for i := range specs {
				specs[i] = jrpc2.Spec{Method: "add", Params: params}
			}
			rsps, err := client.Batch(ctx, specs)
			if err == nil && rsps[n-1].ResultString() != "42" {
				err = fmt.Errorf("batch result %s", rsps[n-1].ResultString())
			}
			return err
		},
		stop: func() { client.Close(); srv.Wait() },
	}
}

func newSourcegraph() peer {
	a, b := net.Pipe()
	ctx := context.Background()
	h := sgrpc.HandlerWithError(func(_ context.Context, _ *sgrpc.Conn, req *sgrpc.Request) (any, error) {
		var p addParams
		if err := json.Unmarshal(*req.Params, &p); err != nil {
			return nil, err
		}
		return p.A + p.B, nil
	})
	server := sgrpc.NewConn(ctx, sgrpc.NewPlainObjectStream(a), sgrpc.AsyncHandler(h))
	client := sgrpc.NewConn(ctx, sgrpc.NewPlainObjectStream(b), sgrpc.HandlerWithError(func(context.Context, *sgrpc.Conn, *sgrpc.Request) (any, error) {
		return nil, nil
	}))
	return peer{
		call: func(ctx context.Context) (int, error) {
			var n int
			err := client.Call(ctx, "add", params, &n)
			return n, err
		},
		stop: func() { client.Close(); server.Close(); <-server.DisconnectNotify() },
	}
}

// The floor: the same exchange written by hand, one call at a time, with
// encoding/json envelopes and a bufio.Reader on each side.
type handRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int64           `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type handResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int64           `json:"id"`
	Result  json.RawMessage `json:"result"`
}

func newHandWritten() peer {
	a, b := net.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // server
		defer wg.Done()
		r := bufio.NewReader(a)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var req handRequest
			if json.Unmarshal(line, &req) != nil {
				return
			}
			var p addParams
			if json.Unmarshal(req.Params, &p) != nil {
				return
			}
			result, _ := json.Marshal(p.A + p.B)
			out, _ := json.Marshal(handResponse{JSONRPC: "2.0", ID: req.ID, Result: result})
			if _, err := a.Write(append(out, '\n')); err != nil {
				return
			}
		}
	}()
	r := bufio.NewReader(b)
	var id int64
	return peer{
		call: func(context.Context) (int, error) {
			id++
			p, _ := json.Marshal(params)
			out, _ := json.Marshal(handRequest{JSONRPC: "2.0", ID: id, Method: "add", Params: p})
			if _, err := b.Write(append(out, '\n')); err != nil {
				return 0, err
			}
			line, err := r.ReadBytes('\n')
			if err != nil {
				return 0, err
			}
			var resp handResponse
			if err := json.Unmarshal(line, &resp); err != nil {
				return 0, err
			}
			var n int
			err = json.Unmarshal(resp.Result, &n)
			return n, err
		},
		stop: func() { b.Close(); a.Close(); wg.Wait() },
	}
}

var peers = []struct {
	name string
	new  func() peer
}{
	{"tether", newTether},
	{"jrpc2", newJrpc2},
	{"sourcegraph", newSourcegraph},
	{"handwritten", newHandWritten},
}

func check(b *testing.B, n int, err error) {
	if err != nil || n != 42 {
		b.Fatalf("add = %d, %v", n, err)
	}
}

// BenchmarkRoundTrip: one call at a time; ns/op and allocs/op are per round
// trip, both sides together.
func BenchmarkRoundTrip(b *testing.B) {
	for _, pc := range peers {
		b.Run(pc.name, func(b *testing.B) {
			p := pc.new()
			defer p.stop()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				n, err := p.call(ctx)
				check(b, n, err)
			}
		})
	}
}

// BenchmarkBatch100: one batch of 100 calls per op.
func BenchmarkBatch100(b *testing.B) {
	for _, pc := range peers {
		p := pc.new()
		if p.batch == nil {
			p.stop()
			continue
		}
		b.Run(pc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := p.batch(ctx, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
		p.stop()
	}
}

// BenchmarkConcurrent64: 64 goroutines calling through one connection.
func BenchmarkConcurrent64(b *testing.B) {
	for _, pc := range peers {
		if pc.name == "handwritten" {
			continue // one call at a time by construction
		}
		b.Run(pc.name, func(b *testing.B) {
			p := pc.new()
			defer p.stop()
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0))) // 64 callers in all
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n, err := p.call(ctx)
					if err != nil || n != 42 {
						b.Errorf("add = %d, %v", n, err)
						return
					}
				}
			})
		})
	}
}
