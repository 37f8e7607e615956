// Command hostfloor measures each language's solution host against the
// floor of a raw line program, side by side in one run, the variants
// alternating in every round (medians reported):
//
//   - calls/s with 1 and 64 calls in flight of the same raw-protocol Go
//     evaluator joined to the language's host by two pipes (direct), and
//     through `tether judge --sandbox none` (judge, when -tether is given);
//
//   - the same for the raw line program (raw: read a request line, write one
//     answer line, big blocks, as any host at least must);
//
//   - start-to-ready of each host (from exec to its ready line);
//
//   - build time of an add(a, b) solution per language through the build
//     cache of package lang: the first build (for C and C++ the host's
//     object is compiled into the cache too), a build of another source
//     (the host's object reused), and a cache hit;
//
//   - C++ compile time of the same solution with the host library (its
//     object prebuilt, as the judge links it) against a plain iostream a+b
//     program, wall and CPU.
//
//     go build -o /tmp/tether ./cmd/tether
//     go run ./bench/hostfloor -tether /tmp/tether -calls 20000 -rounds 5
//
// Run with -role evaluator it is the evaluator side of the judge path.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tether-dev/tether/bench/internal/driver"
	"github.com/tether-dev/tether/lang"
)

// row collects one language's samples over the rounds.
type row struct {
	ready                            []float64 // ms
	direct1, directN, judge1, judgeN []float64
	cpu                              []float64 // µs per call, direct
	compileCold, compileWarm, hit    []float64 // ms
}

func main() {
	role := flag.String("role", "", "evaluator (internal)")
	tether := flag.String("tether", "", "the tether binary for the judge path (empty: direct and raw only)")
	calls := flag.Int("calls", 20000, "calls per measurement")
	inflight := flag.Int("inflight", 64, "calls in flight for the throughput measurement")
	rounds := flag.Int("rounds", 5, "rounds (every variant once per round)")
	only := flag.String("languages", "cpp,c,java,javascript,go,rust,python", "languages to measure")
	program := flag.String("program", "", "measure only this command directly (words split at spaces; for profiling a host: -program 'perf record -g ./main')")
	flag.Parse()
	if *program != "" {
		ready, m, err := direct(subject{name: *program, argv: strings.Fields(*program), env: os.Environ()}, *calls, *inflight)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("ready %.1f ms, 1 in flight %.0f calls/s, %d in flight %.0f calls/s, CPU %.2f µs per call\n", ms(ready), m.One, *inflight, m.Many, m.CPUPerCall)
		return
	}
	if *role == "evaluator" {
		m, err := evaluate(os.Stdin, os.Stdout, *calls, *inflight)
		if err != nil {
			fmt.Fprintln(os.Stderr, "evaluator:", err)
			os.Exit(1)
		}
		js, _ := json.Marshal(m)
		fmt.Printf("---RESULT---\n{\"status\":\"Accepted\",\"score\":100,\"details\":%s}\n", js)
		return
	}
	if err := drive(*tether, strings.Split(*only, ","), *calls, *inflight, *rounds); err != nil {
		log.Fatal(err)
	}
}

func drive(tether string, ids []string, calls, inflight, rounds int) error {
	work, err := os.MkdirTemp("", "hostfloor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	// The system's toolchains first (Debian's rustc: the builder runs a
	// command by its resolved path, and a rustup proxy's is rustup's), and
	// the user's HOME, where the Go build cache lives.
	os.Setenv("PATH", "/usr/bin:/bin:"+os.Getenv("PATH"))
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + os.Getenv("HOME")}
	must := func(err error) {
		if err != nil {
			log.Fatal(err)
		}
	}
	// The raw program and the C++ compile comparison's files.
	rawDir := filepath.Join(work, "raw")
	must(os.MkdirAll(rawDir, 0o755))
	must(os.WriteFile(filepath.Join(rawDir, "raw.c"), []byte(raw), 0o644))
	if out, err := exec.Command("gcc", "-O2", "-o", filepath.Join(rawDir, "raw"), filepath.Join(rawDir, "raw.c")).CombinedOutput(); err != nil {
		return fmt.Errorf("building the raw program: %v\n%s", err, out)
	}
	rawSubject := subject{name: "raw", dir: rawDir, argv: []string{filepath.Join(rawDir, "raw")}, env: env}

	tbl := lang.Builtin()
	var langs []*language
	for _, id := range ids {
		entry, err := tbl.Lookup(id)
		if err != nil {
			return err
		}
		langs = append(langs, &language{id: id, file: "solution" + entry.Extensions[0], source: entry.Smoke})
	}

	var problem, rawProblem string
	if tether != "" {
		problem, rawProblem = filepath.Join(work, "problem"), filepath.Join(work, "rawproblem")
		must(writeProblem(problem, calls, inflight, nil))
		must(writeProblem(rawProblem, calls, inflight, []string{filepath.Join(rawDir, "raw")}))
		must(os.WriteFile(filepath.Join(rawProblem, "solution.txt"), []byte("raw line program\n"), 0o644))
		for _, l := range langs {
			must(os.WriteFile(filepath.Join(problem, l.file), []byte(l.source), 0o644))
		}
	}

	rows := map[string]*row{"raw": {}}
	for _, l := range langs {
		rows[l.id] = &row{}
	}
	cppTimes := map[string][]float64{}
	for round := 1; round <= rounds; round++ {
		fmt.Printf("round %d\n", round)
		// Builds: a fresh cache each round, so the first build is cold.
		cacheDir := filepath.Join(work, fmt.Sprintf("cache-%d", round))
		for _, l := range langs {
			r := rows[l.id]
			cold, warm, hit, err := buildWithCache(l, tbl, cacheDir, work, round, env)
			if err != nil {
				return fmt.Errorf("%s: %w", l.id, err)
			}
			r.compileCold = append(r.compileCold, cold)
			r.compileWarm = append(r.compileWarm, warm)
			r.hit = append(r.hit, hit)
		}
		// Direct: each host, then the raw program, alternating.
		for _, s := range append(subjectsOf(langs), rawSubject) {
			ready, m, err := direct(s, calls, inflight)
			if err != nil {
				return err
			}
			r := rows[s.name]
			r.ready = append(r.ready, ms(ready))
			r.direct1 = append(r.direct1, m.One)
			r.directN = append(r.directN, m.Many)
			r.cpu = append(r.cpu, m.CPUPerCall)
			fmt.Printf("  direct %-10s ready %7.1f ms  1 in flight %8.0f calls/s  %d in flight %8.0f calls/s  CPU %6.2f µs/call\n",
				s.name, ms(ready), m.One, inflight, m.Many, m.CPUPerCall)
		}
		if tether != "" {
			for _, l := range append(slices.Clone(langs), &language{id: "raw"}) {
				var m measurement
				var err error
				if l.id == "raw" {
					m, err = driver.Judged[measurement](tether, rawProblem, filepath.Join(rawProblem, "solution.txt"))
				} else {
					m, err = driver.Judged[measurement](tether, problem, filepath.Join(problem, l.file))
				}
				if err != nil {
					fmt.Printf("  judge  %-10s %v\n", l.id, err)
					continue
				}
				r := rows[l.id]
				r.judge1 = append(r.judge1, m.One)
				r.judgeN = append(r.judgeN, m.Many)
				fmt.Printf("  judge  %-10s 1 in flight %8.0f calls/s  %d in flight %8.0f calls/s\n", l.id, m.One, inflight, m.Many)
			}
		}
		if slices.Contains(ids, "cpp") {
			for k, v := range cppCompile(work, env) {
				cppTimes[k] = append(cppTimes[k], v)
			}
		}
	}
	report(langs, rows, cppTimes, calls, inflight, rounds)
	return nil
}

func subjectsOf(langs []*language) []subject {
	var out []subject
	for _, l := range langs {
		out = append(out, l.host)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func report(langs []*language, rows map[string]*row, cpp map[string][]float64, calls, inflight, rounds int) {
	fmt.Printf("\nmedians of %d rounds, %d calls per measurement\n\n", rounds, calls)
	fmt.Printf("| solution | start→ready ms | direct 1 | direct %d | %% of raw (1 / %d) | CPU µs/call (direct) | judge 1 | judge %d | %% of raw via judge (1 / %d) |\n", inflight, inflight, inflight, inflight)
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	raw := rows["raw"]
	pct := func(a, b []float64) string {
		if len(a) == 0 || len(b) == 0 {
			return "—"
		}
		return fmt.Sprintf("%.0f%%", 100*median(a)/median(b))
	}
	num := func(xs []float64) string {
		if len(xs) == 0 {
			return "—"
		}
		return fmt.Sprintf("%.0f", median(xs))
	}
	for _, id := range append(idsOf(langs), "raw") {
		r := rows[id]
		fmt.Printf("| %s | %.1f | %s | %s | %s / %s | %.2f | %s | %s | %s / %s |\n", id, median(r.ready),
			num(r.direct1), num(r.directN), pct(r.direct1, raw.direct1), pct(r.directN, raw.directN), median(r.cpu),
			num(r.judge1), num(r.judgeN), pct(r.judge1, raw.judge1), pct(r.judgeN, raw.judgeN))
	}
	fmt.Println("\n| language | first build ms | another source ms | cache hit ms |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	for _, l := range langs {
		r := rows[l.id]
		fmt.Printf("| %s | %.0f | %.0f | %.2f |\n", l.id, median(r.compileCold), median(r.compileWarm), median(r.hit))
	}
	if len(cpp["host wall"]) > 0 {
		fmt.Println("\n| g++ -std=c++17 -O2 | wall ms | CPU ms | vs plain (wall / CPU) |")
		fmt.Println("| --- | ---: | ---: | ---: |")
		for _, k := range []string{"plain", "host", "host-unit"} {
			fmt.Printf("| %s | %.0f | %.0f | %.2f× / %.2f× |\n", k, median(cpp[k+" wall"]), median(cpp[k+" cpu"]),
				median(cpp[k+" wall"])/median(cpp["plain wall"]), median(cpp[k+" cpu"])/median(cpp["plain cpu"]))
		}
	}
}

func idsOf(langs []*language) []string {
	var out []string
	for _, l := range langs {
		out = append(out, l.id)
	}
	return out
}
