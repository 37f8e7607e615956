// Command sigglue measures, per language, the calls per second of a
// solution of declared functions (problem.json "functions": the judge
// generates the host glue) against the same language's explicit exports
// (no declaration), side by side in one run: each round runs every
// variant of every language in turn, the order alternating from round to
// round, and the medians are reported.
//
// Both variants serve add(a: int, b: int) -> int, built by package lang
// as the judge builds them (the declared one with the declaration, so with
// its glue) and run without a sandbox, joined by two pipes to the Go
// evaluator SDK's Runner making untyped calls (the evaluator's side is the
// same for both). Calls are made 1 and 64 in flight.
//
//	go run ./bench/sigglue -calls 20000 -rounds 5
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sdk/go/evaluator"
	pysdk "github.com/tether-dev/tether/sdk/python"
	"github.com/tether-dev/tether/sig"
)

const declaration = `[{"name": "add", "params": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}], "result": "int"}]`

// variants are each language's add(a, b): through the generated glue
// (nothing but the function) and exported explicitly.
var variants = []struct {
	id, file          string
	declared, explicit string
}{
	{"cpp", "main.cpp",
		"long long add(long long a, long long b) { return a + b; }\n",
		"#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"},
	{"c", "main.c",
		"long long add(long long a, long long b) { return a + b; }\n",
		"#include \"tether.h\"\ntether_value *add(const tether_value *args) {\n" +
			"  return tether_int(tether_as_int(tether_at(args, 0)) + tether_as_int(tether_at(args, 1)));\n}\nTETHER_EXPORT(add)\n"},
	{"python", "main.py",
		"def add(a, b):\n    return a + b\n",
		"from tether_sdk.solution import register\n\n\ndef plus(a, b):\n    return a + b\n\n\nregister(\"add\", plus)\n"},
	{"javascript", "main.js",
		"function add(a, b) {\n  return a + b;\n}\n",
		"module.exports = { add: (a, b) => a + b };\n"},
	{"java", "Solution.java",
		"class Solution {\n    static long add(long a, long b) { return a + b; }\n}\n",
		"public class Solution {\n    public static long add(long a, long b) { return a + b; }\n}\n"},
	{"rust", "main.rs",
		"fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n",
		"pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n\ntether_export!(add);\n"},
}

// host is one built variant, ready to start.
type host struct {
	lang, variant string
	build         *lang.Build
	env           []string
}

func main() {
	calls := flag.Int("calls", 20000, "calls per measurement")
	rounds := flag.Int("rounds", 5, "rounds (each runs every variant; medians reported)")
	only := flag.String("lang", "", "comma-separated language ids (default: all with a toolchain)")
	flag.Parse()
	log.SetFlags(0)

	decl, err := sig.Parse([]byte(declaration), nil)
	if err != nil {
		log.Fatal(err)
	}
	work, err := os.MkdirTemp("", "sigglue-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	if err := pysdk.WriteTo(work); err != nil {
		log.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + os.Getenv("HOME"),
		"PYTHONPATH=" + work, "PYTHONDONTWRITEBYTECODE=1"}

	ctx := context.Background()
	tbl := lang.Builtin()
	builder := &lang.Builder{Runner: sandbox.NewPlain(), Env: env, Host: "sigglue"}
	var hosts []*host
	for _, v := range variants {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), v.id) {
			continue
		}
		l, err := tbl.Lookup(v.id)
		if err != nil {
			log.Fatal(err)
		}
		for _, variant := range []string{"glue", "explicit"} {
			req := lang.Request{Language: l, FileName: v.file, MemoryMB: 512,
				Limits: l.Effective(lang.CompileLimits{TimeLimitMs: 600000, CPUTimeLimitMs: 600000})}
			if variant == "glue" {
				req.Source, req.Functions = []byte(v.declared), decl
			} else {
				req.Source = []byte(v.explicit)
			}
			began := time.Now()
			bd, err := builder.Build(ctx, req)
			if err != nil {
				log.Printf("skipping %s: building the %s variant: %v", v.id, variant, err)
				hosts = slices.DeleteFunc(hosts, func(h *host) bool { return h.lang == v.id })
				break
			}
			defer bd.Close()
			run := env
			if e := lang.ToolEnv(bd.Run); e != "" {
				run = append(slices.Clip(env), e)
			}
			fmt.Printf("built %-10s %-8s in %6.0f ms\n", v.id, variant, time.Since(began).Seconds()*1000)
			hosts = append(hosts, &host{lang: v.id, variant: variant, build: bd, env: run})
		}
	}

	// rates[lang/variant/inflight] are the calls/s of each round.
	rates := map[string][]float64{}
	for round := 0; round < *rounds; round++ {
		order := slices.Clone(hosts)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, h := range order {
			for _, inflight := range []int{1, 64} {
				r, err := measure(ctx, h, *calls, inflight)
				if err != nil {
					log.Fatalf("%s %s: %v", h.lang, h.variant, err)
				}
				key := fmt.Sprintf("%s/%s/%d", h.lang, h.variant, inflight)
				rates[key] = append(rates[key], r)
			}
		}
		fmt.Printf("round %d of %d done\n", round+1, *rounds)
	}

	fmt.Printf("\ncalls/s, median of %d rounds of %d calls (glue: function only, declared; explicit: exported by the source)\n\n", *rounds, *calls)
	fmt.Println("| language | glue, 1 in flight | explicit, 1 in flight | glue vs explicit | glue, 64 in flight | explicit, 64 in flight | glue vs explicit |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, v := range variants {
		if _, ok := rates[v.id+"/glue/1"]; !ok {
			continue
		}
		row := "| " + v.id
		for _, inflight := range []int{1, 64} {
			g := median(rates[fmt.Sprintf("%s/glue/%d", v.id, inflight)])
			e := median(rates[fmt.Sprintf("%s/explicit/%d", v.id, inflight)])
			row += fmt.Sprintf(" | %.0f | %.0f | %+.1f%%", g, e, (g/e-1)*100)
		}
		fmt.Println(row + " |")
	}
}

// measure starts h, waits for its ready line, makes calls add(i, 1) with
// inflight of them at a time through the Go evaluator SDK and returns the
// calls per second (from the first call to the last answer).
func measure(ctx context.Context, h *host, calls, inflight int) (float64, error) {
	p, err := sandbox.NewPlain().Start(ctx, sandbox.Spec{Args: h.build.Run, Env: h.env, Files: h.build.Files, Binds: h.build.Binds})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	go io.Copy(io.Discard, p.Stderr())
	out := bufio.NewReaderSize(p.Stdout(), 1<<16)
	ready, err := out.ReadString('\n')
	if err != nil || !strings.Contains(ready, `"ready"`) {
		return 0, fmt.Errorf("no ready line: %q, %v", ready, err)
	}
	r := evaluator.New(out, p.Stdin(), &evaluator.Options{Log: func(string, string) {}})
	defer func() {
		p.Stdin().Close() // the host ends at EOF, which ends the Runner's reading
		r.Close()
	}()
	next := make(chan int64, calls)
	for i := 0; i < calls; i++ {
		next <- int64(i)
	}
	close(next)
	errs := make(chan error, inflight)
	var wg sync.WaitGroup
	began := time.Now()
	for w := 0; w < inflight; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				v, err := r.Call(ctx, "add", i, int64(1))
				if err == nil && v != i+1 {
					err = fmt.Errorf("add(%d, 1) = %v", i, v)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(began)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(calls) / took.Seconds(), nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
