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
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
	cppsdk "github.com/tether-dev/tether/sdk/cpp"
	gosdk "github.com/tether-dev/tether/sdk/go"
	pysdk "github.com/tether-dev/tether/sdk/python"
)

// raw is the floor: it reads big blocks and answers every complete line in
// them with one result line carrying the call's id, all in one write.
const raw = `#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>
static char in[1 << 16], out[1 << 17];
int main(void) {
  size_t have = 0;
  if (write(1, "{\"type\":\"ready\"}\n", 17) != 17) return 1;
  for (;;) {
    ssize_t n = read(0, in + have, sizeof in - have);
    if (n <= 0) return 0;
    have += (size_t)n;
    size_t o = 0, start = 0;
    char *nl;
    while ((nl = memchr(in + start, '\n', have - start))) {
      char *id = memmem(in + start, (size_t)(nl - in - start), "\"id\":\"", 6), *end;
      if (id && (end = memchr(id + 6, '"', (size_t)(nl - id - 6)))) {
        o += (size_t)(stpcpy(out + o, "{\"type\":\"result\",\"id\":\"") - (out + o));
        memcpy(out + o, id + 6, (size_t)(end - id - 6));
        o += (size_t)(end - id - 6);
        o += (size_t)(stpcpy(out + o, "\",\"value\":0}\n") - (out + o));
      }
      start = (size_t)(nl - in) + 1;
    }
    memmove(in, in + start, have - start);
    have -= start;
    for (size_t off = 0; off < o;) {
      ssize_t k = write(1, out + off, o - off);
      if (k <= 0) return 1;
      off += (size_t)k;
    }
  }
}
`

const plainCpp = `#include <iostream>
int main() {
  long long a, b;
  std::cin >> a >> b;
  std::cout << a + b << "\n";
}
`

const goSolution = `package main

import (
	"context"

	"github.com/tether-dev/tether/sdk/go/solution"
)

func main() {
	solution.Register("add", func(ctx context.Context, args []any) (any, error) {
		return args[0].(int64) + args[1].(int64), nil
	})
	solution.Serve()
}
`

// slowCompileMs bounds every compile of the benchmark (wall and CPU).
const slowCompileMs = 600000

// measurement is what the evaluator reports: calls/s at 1 and at
// -inflight calls in flight.
type measurement struct {
	One  float64 `json:"calls_per_s_1"`
	Many float64 `json:"calls_per_s_many"`
	// The program's CPU time (user+system) per call over both phases, in
	// µs: direct runs only. On a machine shared with other work calls/s
	// follow the load; this does not.
	CPUPerCall float64 `json:"-"`
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

// evaluate makes the calls over r and w: calls at one in flight, then
// calls at inflight in flight (flushing when no answer is buffered, as an
// evaluator that keeps calls in flight does).
func evaluate(in io.Reader, out io.Writer, calls, inflight int) (measurement, error) {
	w := bufio.NewWriterSize(out, 1<<16)
	r := bufio.NewReaderSize(in, 1<<16)
	next := 0
	send := func() {
		id := strconv.Itoa(next)
		next++
		w.WriteString(`{"type":"call","id":"` + id + `","fn":"add","args":[` + id + ",1]}\n")
	}
	recv := func() error {
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return fmt.Errorf("reading an answer after %d calls: %w", next, err)
			}
			if bytes.Contains(line, []byte(`"type":"log"`)) {
				continue
			}
			if !bytes.Contains(line, []byte(`"type":"result"`)) {
				return fmt.Errorf("not a result: %.200s", line)
			}
			return nil
		}
	}
	var m measurement
	start := time.Now()
	for range calls {
		send()
		w.Flush()
		if err := recv(); err != nil {
			return m, err
		}
	}
	m.One = float64(calls) / time.Since(start).Seconds()
	start = time.Now()
	for range min(inflight, calls) {
		send()
	}
	w.Flush()
	sent := min(inflight, calls)
	for done := 0; done < calls; done++ {
		if err := recv(); err != nil {
			return m, err
		}
		if sent < calls {
			send()
			sent++
		}
		if r.Buffered() == 0 {
			w.Flush()
		}
	}
	m.Many = float64(calls) / time.Since(start).Seconds()
	return m, nil
}

// subject is one program to measure directly: argv run in dir.
type subject struct {
	name string
	dir  string
	argv []string
	env  []string
}

// direct starts s, waits for its ready line, and measures it.
func direct(s subject, calls, inflight int) (ready time.Duration, m measurement, err error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = s.dir, s.env, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, m, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, m, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, m, err
	}
	out := bufio.NewReaderSize(outPipe, 1<<16)
	line, err := out.ReadBytes('\n')
	if err != nil || !bytes.Contains(line, []byte(`"ready"`)) {
		cmd.Process.Kill()
		return 0, m, fmt.Errorf("%s: no ready line (%q, %v)", s.name, line, err)
	}
	ready = time.Since(start)
	m, err = evaluate(out, in, calls, inflight)
	if err != nil {
		cmd.Process.Kill()
	}
	in.Close()
	if werr := cmd.Wait(); werr == nil && cmd.ProcessState != nil {
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		m.CPUPerCall = float64(cpu.Nanoseconds()) / 1e3 / float64(2*calls)
	}
	return ready, m, err
}

// judged runs the problem through tether with solution file sol.
func judged(tether, problem, sol string) (measurement, error) {
	self, _ := os.Executable()
	out, err := exec.Command(tether, "judge", "--sandbox", "none", "--json",
		"--allow-command", self, problem, sol).Output()
	if err != nil {
		return measurement{}, fmt.Errorf("%w: %.2000s", err, out)
	}
	var res struct {
		Status  string      `json:"status"`
		Output  string      `json:"output"`
		Details measurement `json:"details"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return measurement{}, fmt.Errorf("reading the result: %w: %.500s", err, out)
	}
	if res.Status != "Accepted" {
		return measurement{}, fmt.Errorf("verdict %s: %.2000s", res.Status, res.Output)
	}
	return res.Details, nil
}

// writeProblem makes a problem folder whose evaluator is this binary;
// solution, when not nil, is the solution's command (the raw program).
func writeProblem(dir string, calls, inflight int, solution []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// Compile limits far above the defaults: a loaded machine must not turn
	// a slow compile into a CompileError here.
	sol := map[string]any{"call_timeout_ms": 60000, "memory_limit_mb": 512,
		"compile": map[string]any{"time_limit_ms": slowCompileMs, "cpu_time_limit_ms": slowCompileMs}}
	if solution != nil {
		sol["command"] = solution
	}
	cfg := map[string]any{"title": "host floor", "runtime_config": map[string]any{
		"evaluator": map[string]any{"command": []string{self, "-role", "evaluator", "-calls", strconv.Itoa(calls),
			"-inflight", strconv.Itoa(inflight)}, "time_limit_ms": 600000},
		"solution": sol,
	}}
	js, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "problem.json"), js, 0o644)
}

// language is one language's solution, built once for the direct runs.
type language struct {
	id, file string // file: the solution's name for the judge (its extension picks the language)
	source   string
	host     subject
}

var extension = map[string]string{"cpp": "cpp", "c": "c", "java": "java", "javascript": "js", "go": "go", "rust": "rs", "python": "py"}

// row collects one language's samples over the rounds.
type row struct {
	ready                                  []float64 // ms
	direct1, directN, judge1, judgeN       []float64
	cpu                                    []float64 // µs per call, direct
	compileCold, compileWarm, hit, goBuild []float64 // ms
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
		l := &language{id: id, file: "solution." + extension[id]}
		if id == "go" {
			l.source = goSolution
		} else {
			entry, err := tbl.Lookup(id)
			if err != nil {
				return err
			}
			l.source = entry.Smoke
		}
		langs = append(langs, l)
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
			if l.id == "go" {
				ms, err := buildGo(l, work, round, env)
				if err != nil {
					return fmt.Errorf("go: %w", err)
				}
				r.goBuild = append(r.goBuild, ms)
				continue
			}
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
					m, err = judged(tether, rawProblem, filepath.Join(rawProblem, "solution.txt"))
				} else {
					m, err = judged(tether, problem, filepath.Join(problem, l.file))
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

// buildWithCache builds l's solution through lang's builder and cache:
// cold (a fresh cache), warm (another source: the host's object reused)
// and a hit; it keeps the warm build as l's host for the direct runs.
func buildWithCache(l *language, tbl *lang.Table, cacheDir, work string, round int, env []string) (cold, warm, hit float64, err error) {
	entry, err := tbl.Lookup(l.id)
	if err != nil {
		return 0, 0, 0, err
	}
	cache, err := lang.OpenCache(cacheDir, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	b := &lang.Builder{Runner: sandbox.NewPlain(), Cache: cache, Env: env, Host: "hostfloor"}
	req := lang.Request{Language: entry, Source: []byte(l.source), MemoryMB: 512,
		Limits: entry.Effective(lang.CompileLimits{TimeLimitMs: slowCompileMs, CPUTimeLimitMs: slowCompileMs})}
	timed := func(src string) (float64, *lang.Build, error) {
		req.Source = []byte(src)
		start := time.Now()
		bd, err := b.Build(context.Background(), req)
		return ms(time.Since(start)), bd, err
	}
	comment := map[bool]string{true: "# ", false: "// "}[l.id == "python"]
	cold, bd, err := timed(l.source + "\n" + comment + "cold\n")
	if err != nil {
		return 0, 0, 0, err
	}
	bd.Close()
	warm, bd, err = timed(l.source)
	if err != nil {
		return 0, 0, 0, err
	}
	hit, again, err := timed(l.source)
	if err != nil {
		bd.Close()
		return 0, 0, 0, err
	}
	again.Close()
	defer bd.Close()
	dir := filepath.Join(work, fmt.Sprintf("%s-%d", l.id, round))
	if err := place(dir, bd.Files); err != nil {
		return 0, 0, 0, err
	}
	runEnv := env
	if l.id == "python" {
		if err := pysdk.WriteTo(dir); err != nil {
			return 0, 0, 0, err
		}
		runEnv = append(slices.Clip(env), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
	}
	l.host = subject{name: l.id, dir: dir, argv: bd.Run, env: runEnv}
	fmt.Printf("  build  %-10s first %7.0f ms  another source %7.0f ms  cache hit %6.2f ms\n", l.id, cold, warm, hit)
	return cold, warm, hit, nil
}

// place writes a build's files into dir.
func place(dir string, files []sandbox.File) error {
	for _, f := range files {
		to := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		data := f.Data
		if f.Source != "" {
			var err error
			if data, err = os.ReadFile(f.Source); err != nil {
				return err
			}
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(to, data, mode); err != nil {
			return err
		}
	}
	return nil
}

// buildGo builds the Go solution as gosdk documents (lang has no Go host
// wired in yet, so no cache of lang's; the user's Go build cache is used).
func buildGo(l *language, work string, round int, env []string) (float64, error) {
	dir := filepath.Join(work, fmt.Sprintf("go-%d", round))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	if err := gosdk.WriteTo(dir); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(l.source), 0o644); err != nil {
		return 0, err
	}
	cmd := exec.Command(gosdk.Compile[0], gosdk.Compile[1:]...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clip(env), gosdk.Env...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%v\n%s", err, out)
	}
	took := ms(time.Since(start))
	l.host = subject{name: l.id, dir: dir, argv: []string{filepath.Join(dir, "main")}, env: env}
	fmt.Printf("  build  %-10s go build %7.0f ms\n", l.id, took)
	return took, nil
}

// cppCompile times g++ on the add solution with the host's object
// prebuilt, the same with the host compiled along (before the prebuilt
// object), and a plain iostream a+b program, alternating; wall and CPU
// (the compiler's user+system time) in ms.
func cppCompile(work string, env []string) map[string]float64 {
	dir := filepath.Join(work, "cppcompile")
	os.MkdirAll(dir, 0o755)
	cppsdk.WriteTo(dir)
	os.WriteFile(filepath.Join(dir, "main.cpp"), []byte("#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "plain.cpp"), []byte(plainCpp), 0o644)
	run := func(args ...string) (wall, cpu float64) {
		cmd := exec.Command("g++", args...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("g++ %v: %v\n%s", args, err, out)
		}
		wall = ms(time.Since(start))
		cpu = ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
		return
	}
	flags := []string{"-std=c++17", "-O2", "-pipe"}
	run(append(slices.Clone(flags), "-c", cppsdk.HostUnit)...) // tether_host.o, as the build cache holds it
	out := map[string]float64{}
	for _, v := range []struct{ name, src string }{{"host", "main.cpp"}, {"plain", "plain.cpp"}, {"host-unit", "main.cpp"}} {
		args := append(slices.Clone(flags), "-o", "main-"+v.name, v.src)
		switch v.name {
		case "host":
			args = append(args, "tether_host.o")
		case "host-unit":
			args = append(args, cppsdk.HostUnit)
		}
		wall, cpu := run(args...)
		out[v.name+" wall"], out[v.name+" cpu"] = wall, cpu
	}
	fmt.Printf("  g++ add with the host's object %5.0f ms (cpu %4.0f), plain iostream a+b %5.0f ms (cpu %4.0f), host compiled along %5.0f ms (cpu %4.0f)\n",
		out["host wall"], out["host cpu"], out["plain wall"], out["plain cpu"], out["host-unit wall"], out["host-unit cpu"])
	return out
}

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
		if l.id == "go" {
			fmt.Printf("| go | %.0f (go build, no cache) | — | — |\n", median(r.goBuild))
			continue
		}
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
