// Command tracecost measures what the trace writer costs the relay on a
// machine whose speed drifts while it runs: it runs the variants of the
// trace package's BenchmarkRelayTrace (off: no trace; floor: every line
// copied into the file as it is, the least a trace of every line can do;
// on: the trace writer) one process at a time, in a random order each
// round, and gives each variant's cost as the geometric mean of its
// per-round ratio to off, with a 95% bootstrap interval. Pairing within a
// round cancels the drift that makes separate batches of the same binary
// differ by 20% or more here; the random order, any effect of the variant
// run just before (under a fixed rotation, which put the same variant
// before each every round, one build read 3 to 4 points apart by its
// place in the round).
//
//	go test -c -o /tmp/trace.test ./trace
//	go run ./bench/tracecost -test /tmp/trace.test -rounds 40
//
// With -candidate BIN, two more variants run another build of the package
// (a change being tried) in the same rounds: "cand-off" its relay without
// a trace, "cand" with its trace writer, whose cost is given against
// cand-off (a build's relay may be faster or slower by itself).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

var baseVariants = []string{"off", "floor", "on"}

// metrics are the benchmark's units this reports, in order.
var metrics = []string{"ns/call", "judge-cpu-ns/call"}

func main() {
	test := flag.String("test", "", "the trace package's test binary (go test -c -o BIN ./trace); required")
	rounds := flag.Int("rounds", 40, "rounds; each runs every variant once")
	calls := flag.Int("calls", 40000, "calls per run")
	inflight := flag.Int("inflight", 64, "calls in flight (1 or 64)")
	candidate := flag.String("candidate", "", "another build of the trace package's test binary: its trace writer runs as the variant cand")
	flag.Parse()
	if *test == "" || *rounds < 2 {
		fmt.Fprintln(os.Stderr, "tracecost: -test BIN is required (build it with: go test -c -o BIN ./trace), and -rounds at least 2")
		os.Exit(2)
	}
	variants := slices.Clone(baseVariants)
	if *candidate != "" {
		variants = append(variants, "cand-off", "cand")
	}
	order := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	// results[round][variant][metric]
	results := make([]map[string][]float64, *rounds)
	fmt.Printf("%d rounds of %s, %d calls each, %d in flight\n", *rounds, strings.Join(variants, ", "), *calls, *inflight)
	for r := range results {
		results[r] = map[string][]float64{}
		for _, k := range order.Perm(len(variants)) {
			v := variants[k]
			bin, trace := *test, v
			switch v {
			case "cand-off":
				bin, trace = *candidate, "off"
			case "cand":
				bin, trace = *candidate, "on"
			}
			m, err := run(bin, *inflight, trace, *calls)
			if err != nil {
				fmt.Fprintf(os.Stderr, "tracecost: round %d, %s: %v\n", r+1, v, err)
				os.Exit(1)
			}
			results[r][v] = m
		}
		fmt.Printf("round %2d ", r+1)
		for _, v := range variants {
			fmt.Printf(" %s %6.0f", v, results[r][v][0])
		}
		fmt.Println(" ns/call")
	}
	for i, unit := range metrics {
		fmt.Printf("\n%s\n", unit)
		for _, v := range variants {
			fmt.Printf("  %-8s median %7.0f", v, median(column(results, v, i)))
			if base := baseOf(v); base != "" {
				g, lo, hi := pairedRatio(results, v, base, i)
				fmt.Printf("   %s/%s %.3f (95%% interval %.3f–%.3f)", v, base, g, lo, hi)
			}
			fmt.Println()
		}
	}
}

// run runs one variant in a process of its own and returns its metrics.
func run(test string, inflight int, variant string, calls int) ([]float64, error) {
	bench := fmt.Sprintf("RelayTrace/inflight=%d/trace=%s$", inflight, variant)
	out, err := exec.Command(test, "-test.run", "^$", "-test.bench", bench,
		"-test.benchtime", strconv.Itoa(calls)+"x").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "BenchmarkRelayTrace/") {
			continue
		}
		m := make([]float64, len(metrics))
		for i, unit := range metrics {
			j := slices.Index(f, unit)
			if j < 1 {
				return nil, fmt.Errorf("no %s in %q", unit, sc.Text())
			}
			if m[i], err = strconv.ParseFloat(f[j-1], 64); err != nil {
				return nil, fmt.Errorf("%s in %q: %v", unit, sc.Text(), err)
			}
		}
		return m, nil
	}
	return nil, fmt.Errorf("no result line in: %s", out)
}

func column(results []map[string][]float64, v string, i int) []float64 {
	var xs []float64
	for _, r := range results {
		xs = append(xs, r[v][i])
	}
	return xs
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// baseOf is the variant v's cost is given against: its own build's relay
// without a trace; none for off.
func baseOf(v string) string {
	switch v {
	case "off":
		return ""
	case "cand":
		return "cand-off"
	}
	return "off"
}

// pairedRatio is the geometric mean over rounds of v's metric i divided by
// base's in the same round, and a 95% percentile-bootstrap interval for it.
func pairedRatio(results []map[string][]float64, v, base string, i int) (g, lo, hi float64) {
	logs := make([]float64, len(results))
	for r, res := range results {
		logs[r] = math.Log(res[v][i] / res[base][i])
	}
	mean := func(pick func(int) float64) float64 {
		sum := 0.0
		for r := range logs {
			sum += pick(r)
		}
		return sum / float64(len(logs))
	}
	rng := rand.New(rand.NewPCG(1, 2)) // the same interval for the same rounds
	boots := make([]float64, 4000)
	for b := range boots {
		boots[b] = mean(func(int) float64 { return logs[rng.IntN(len(logs))] })
	}
	slices.Sort(boots)
	return math.Exp(mean(func(r int) float64 { return logs[r] })),
		math.Exp(boots[len(boots)*25/1000]), math.Exp(boots[len(boots)*975/1000-1])
}
