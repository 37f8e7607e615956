// Command gobuild measures the compile of examples/gosolution/solution/main.go
// through lang.Builder in the linux sandbox (run it as root): with no
// build cache (an empty GOCACHE of its own: the standard library and the
// SDK compiled too), with a fresh build cache (the first build warms the
// shared GOCACHE, then compiles), another source on that warm GOCACHE, and
// a build cache hit. Every variant once per round, medians printed.
//
//	go run ./bench/gobuild -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

func main() {
	rounds := flag.Int("rounds", 3, "rounds")
	source := flag.String("source", "examples/gosolution/solution/main.go", "the Go solution to build")
	flag.Parse()
	src, err := os.ReadFile(*source)
	if err != nil {
		log.Fatal(err)
	}
	runner, err := sandbox.NewLinux(nil)
	if err != nil {
		log.Fatal(err)
	}
	defer runner.Close()
	l, err := lang.Builtin().Lookup("go")
	if err != nil {
		log.Fatal(err)
	}
	work, err := os.MkdirTemp("", "gobuild-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	build := func(cache *lang.Cache, source []byte) (wall time.Duration, stats lang.Stats) {
		b := &lang.Builder{Runner: runner, Cache: cache, Env: env, Host: "gobuild"}
		start := time.Now()
		bd, err := b.Build(context.Background(), lang.Request{Language: l, Source: source, MemoryMB: 256})
		wall = time.Since(start)
		if err != nil {
			log.Fatal(err)
		}
		defer bd.Close()
		return wall, bd.Stats
	}
	results := map[string][]float64{}
	order := []string{"no build cache: compile", "first build (warms GOCACHE)", "another source (warm GOCACHE)", "cache hit"}
	for round := 1; round <= *rounds; round++ {
		_, s := build(nil, src)
		results[order[0]] = append(results[order[0]], float64(s.TimeMs))
		cache, err := lang.OpenCache(filepath.Join(work, fmt.Sprint("cache-", round)), 0)
		if err != nil {
			log.Fatal(err)
		}
		w, _ := build(cache, src)
		results[order[1]] = append(results[order[1]], ms(w))
		other := append(slices.Clip(src), fmt.Sprintf("\n// round %d\n", round)...)
		_, s = build(cache, other)
		results[order[2]] = append(results[order[2]], float64(s.TimeMs))
		w, s = build(cache, other)
		if !s.Cached {
			log.Fatal("the same source again was not a cache hit")
		}
		results[order[3]] = append(results[order[3]], ms(w))
		fmt.Printf("round %d:", round)
		for _, k := range order {
			fmt.Printf("  %s %.1f ms", k, results[k][round-1])
		}
		fmt.Println()
	}
	fmt.Printf("\nmedians of %d rounds (ms; compiles are the compile sandbox's wall time, the first build and the hit lang.Builder.Build's)\n\n", *rounds)
	fmt.Println("| variant | ms |\n| --- | ---: |")
	for _, k := range order {
		fmt.Printf("| %s | %.1f |\n", k, median(results[k]))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
