package main

// Builds through package lang's builder and cache, and the C++ compile
// comparison.

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
	cppsdk "github.com/tether-dev/tether/sdk/cpp"
	pysdk "github.com/tether-dev/tether/sdk/python"
)

// slowCompileMs bounds every compile of the benchmark (wall and CPU).
const slowCompileMs = 600000

// language is one language's solution, built once for the direct runs.
type language struct {
	id, file string // file: the solution's name for the judge (its extension picks the language)
	source   string
	host     subject
}

const plainCpp = `#include <iostream>
int main() {
  long long a, b;
  std::cin >> a >> b;
  std::cout << a + b << "\n";
}
`

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
	// The cold build's source differs by a trailing newline: valid in
	// every language, and another key.
	cold, bd, err := timed(l.source + "\n")
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

// cppCompile times g++ on the add solution with the host's object
// prebuilt, the same with the host compiled along (before the prebuilt
// object), and a plain iostream a+b program, alternating; wall and CPU
// (the compiler's user+system time) in ms.
func cppCompile(work string, env []string) map[string]float64 {
	dir := filepath.Join(work, "cppcompile")
	os.MkdirAll(dir, 0o755)
	cppsdk.Files.WriteTo(dir)
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
