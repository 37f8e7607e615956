// Command sigglue measures, per language, the calls per second of a
// solution of declared functions (problem.json "functions": the judge
// generates the host glue) against the same language's explicit exports
// (no declaration), side by side in one run: each round measures each
// language's two variants back to back, which one first alternating, and
// the medians of the rounds (calls/s, and the rounds' glue/explicit
// ratios) are reported.
//
// Both variants serve add(a: int, b: int) -> int, built by package lang
// as the judge builds them (the declared one with the declaration, so with
// its glue) and run without a sandbox, joined by two pipes to the Go
// evaluator SDK's Runner making untyped calls (the evaluator's side is the
// same for both). Calls are made 1 and 64 in flight. Besides calls/s it
// reports the host process's CPU time per call (its threads' schedstat),
// which the machine's load moves far less than the wall clock.
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
	"path/filepath"
	"slices"
	"strconv"
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
	id, file           string
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
	{"go", "main.go",
		"package main\n\nfunc add(a, b int64) int64 { return a + b }\n",
		"package main\n\nimport (\n\t\"context\"\n\n\t\"github.com/tether-dev/tether/sdk/go/solution\"\n)\n\n" +
			"func main() {\n\tsolution.Register(\"add\", func(ctx context.Context, args []any) (any, error) {\n" +
			"\t\treturn args[0].(int64) + args[1].(int64), nil\n\t})\n\tsolution.Serve()\n}\n"},
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
	cache, err := lang.OpenCache(work+"/cache", 0) // Go's standard library compiled once
	if err != nil {
		log.Fatal(err)
	}
	builder := &lang.Builder{Runner: sandbox.NewPlain(), Cache: cache, Env: env, Host: "sigglue"}
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

	// Each round measures, per language and calls in flight, the two
	// variants back to back (which first alternates by round), so that a
	// pair shares the machine's load of its minute: ratios[key] are the
	// pairs' glue/explicit, rates[key/variant] the calls/s.
	rates, ratios := map[string][]float64{}, map[string][]float64{}
	cpus, cpuRatios := map[string][]float64{}, map[string][]float64{} // the host's CPU ns per call
	var keys []string
	for round := 0; round < *rounds; round++ {
		for i := 0; i+1 < len(hosts); i += 2 {
			pair := []*host{hosts[i], hosts[i+1]} // glue, explicit
			for _, inflight := range []int{1, 64} {
				key := fmt.Sprintf("%s/%d", pair[0].lang, inflight)
				if round == 0 {
					keys = append(keys, key)
				}
				order := []int{0, 1}
				if (round+i/2)%2 == 1 {
					order = []int{1, 0}
				}
				var got, cpu [2]float64
				for _, k := range order {
					if got[k], cpu[k], err = measure(ctx, pair[k], *calls, inflight); err != nil {
						log.Fatalf("%s %s: %v", pair[k].lang, pair[k].variant, err)
					}
					rates[key+"/"+pair[k].variant] = append(rates[key+"/"+pair[k].variant], got[k])
					cpus[key+"/"+pair[k].variant] = append(cpus[key+"/"+pair[k].variant], cpu[k])
				}
				ratios[key] = append(ratios[key], got[0]/got[1])
				cpuRatios[key] = append(cpuRatios[key], cpu[0]/cpu[1])
			}
		}
		fmt.Printf("round %d of %d done\n", round+1, *rounds)
	}

	fmt.Printf("\ncalls/s by round (glue: function only, declared; explicit: exported by the source), %d calls each after %d untimed\n\n", *calls, *calls/10)
	for _, key := range keys {
		fmt.Printf("%-14s glue     %s\n%-14s explicit %s\n%-14s ratio    %s\n", key, row(rates[key+"/glue"], "%8.0f"), "", row(rates[key+"/explicit"], "%8.0f"), "", row(ratios[key], "%8.3f"))
	}
	fmt.Printf("\nthe host's CPU µs per call, by round\n\n")
	for _, key := range keys {
		fmt.Printf("%-14s glue     %s\n%-14s explicit %s\n%-14s ratio    %s\n", key, row(scaled(cpus[key+"/glue"], 1e-3), "%8.2f"), "", row(scaled(cpus[key+"/explicit"], 1e-3), "%8.2f"), "", row(cpuRatios[key], "%8.3f"))
	}
	fmt.Printf("\nmedians of %d rounds\n\n", *rounds)
	fmt.Println("| language | in flight | glue calls/s | explicit calls/s | glue/explicit | host CPU µs/call, glue | explicit | glue/explicit |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, key := range keys {
		l, inflight, _ := strings.Cut(key, "/")
		fmt.Printf("| %s | %s | %.0f | %.0f | %.3f | %.2f | %.2f | %.3f |\n", l, inflight,
			median(rates[key+"/glue"]), median(rates[key+"/explicit"]), median(ratios[key]),
			median(cpus[key+"/glue"])/1e3, median(cpus[key+"/explicit"])/1e3, median(cpuRatios[key]))
	}
	fmt.Println("\n(glue/explicit: the median of the rounds' ratios, each of a pair measured back to back)")
}

func scaled(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

func row(xs []float64, format string) string {
	var b strings.Builder
	for _, x := range xs {
		fmt.Fprintf(&b, format, x)
	}
	return b.String()
}

// measure starts h, waits for its ready line, makes calls/10 untimed
// calls, then calls add(i, 1) with inflight of them at a time through the
// Go evaluator SDK, and returns the calls per second (from the first timed
// call to the last answer).
func measure(ctx context.Context, h *host, calls, inflight int) (rate, cpuPerCall float64, err error) {
	p, err := sandbox.NewPlain().Start(ctx, sandbox.Spec{Args: h.build.Run, Env: h.env, Files: h.build.Files, Binds: h.build.Binds})
	if err != nil {
		return 0, 0, err
	}
	defer p.Close()
	go io.Copy(io.Discard, p.Stderr())
	out := bufio.NewReaderSize(p.Stdout(), 1<<16)
	ready, err := out.ReadString('\n')
	if err != nil || !strings.Contains(ready, `"ready"`) {
		return 0, 0, fmt.Errorf("no ready line: %q, %v", ready, err)
	}
	r := evaluator.New(out, p.Stdin(), &evaluator.Options{Log: func(string, string) {}})
	defer func() {
		p.Stdin().Close() // the host ends at EOF, which ends the Runner's reading
		r.Close()
	}()
	// Untimed calls first: JIT compilers (Java, JavaScript) and caches
	// warm up before the clock starts.
	for i := 0; i < calls/10; i++ {
		if _, err := r.Call(ctx, "add", int64(i), int64(1)); err != nil {
			return 0, 0, err
		}
	}
	next := make(chan int64, calls)
	for i := 0; i < calls; i++ {
		next <- int64(i)
	}
	close(next)
	errs := make(chan error, inflight)
	var wg sync.WaitGroup
	cpuBefore, err := hostCPU(p.Pid())
	if err != nil {
		return 0, 0, err
	}
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
	cpuAfter, cpuErr := hostCPU(p.Pid())
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	if cpuErr != nil {
		return 0, 0, cpuErr
	}
	return float64(calls) / took.Seconds(), float64(cpuAfter-cpuBefore) / float64(calls), nil
}

// hostCPU is the CPU time, in ns, that the threads of process pid have
// run (the first field of each /proc/PID/task/TID/schedstat): unlike the
// wall clock, hardly moved by the load of others on the machine.
func hostCPU(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no schedstat for pid %d: %v", pid, err)
	}
	var sum int64
	for _, f := range tasks {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		fields := strings.Fields(string(data))
		if len(fields) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", f, err)
		}
		sum += ns
	}
	return sum, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
