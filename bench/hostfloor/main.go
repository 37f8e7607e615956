// Command hostfloor measures a language's solution host against the floor
// of a raw line program, both driven directly over two pipes (no judge):
// calls/s with 1 and 64 calls in flight. The raw program answers each line
// by writing it back (read and write in big blocks, as cat does), which is
// what any host must at least do.
//
//	go run ./bench/hostfloor -calls 200000 -rounds 3
//
// It builds the C++ host (sdk/cpp) with an aplusb solution and the raw
// program with g++ into a temporary directory.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	cppsdk "github.com/tether-dev/tether/sdk/cpp"
)

const aplusb = `#include "tether.hpp"
long long add(long long a, long long b) { return a + b; }
TETHER_EXPORT(add);
`

const raw = `#include <unistd.h>
int main() {
  static char buf[1 << 16];
  for (;;) {
    ssize_t n = read(0, buf, sizeof buf);
    if (n <= 0) return 0;
    for (ssize_t off = 0; off < n;) {
      ssize_t k = write(1, buf + off, n - off);
      if (k <= 0) return 1;
      off += k;
    }
  }
}
`

func main() {
	calls := flag.Int("calls", 100000, "calls per measurement")
	rounds := flag.Int("rounds", 3, "rounds (host and floor alternate)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "hostfloor")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := cppsdk.WriteTo(dir); err != nil {
		log.Fatal(err)
	}
	must(os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(aplusb), 0o644))
	must(os.WriteFile(filepath.Join(dir, "raw.cpp"), []byte(raw), 0o644))
	argv := append([]string{}, cppsdk.Compile...)
	for i, a := range argv {
		if a == "{source}" {
			argv[i] = "main.cpp"
		}
	}
	build(dir, argv...)
	build(dir, "g++", "-O2", "-o", "raw", "raw.cpp")
	for r := 0; r < *rounds; r++ {
		for _, inflight := range []int{1, 64} {
			host := measure(filepath.Join(dir, "main"), true, *calls, inflight)
			floor := measure(filepath.Join(dir, "raw"), false, *calls, inflight)
			fmt.Printf("round %d, %2d in flight: C++ host %8.0f calls/s, raw line program %8.0f calls/s: %.1f%%\n",
				r+1, inflight, host, floor, 100*host/floor)
		}
	}
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func build(dir string, argv ...string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("%v: %v\n%s", argv, err, out)
	}
}

// measure runs prog and returns its answered calls per second.
func measure(prog string, ready bool, calls, inflight int) float64 {
	cmd := exec.Command(prog)
	in, err := cmd.StdinPipe()
	must(err)
	outPipe, err := cmd.StdoutPipe()
	must(err)
	must(cmd.Start())
	out := bufio.NewReaderSize(outPipe, 1<<16)
	if ready {
		if _, err := out.ReadBytes('\n'); err != nil {
			log.Fatal(err)
		}
	}
	tokens := make(chan struct{}, inflight)
	for i := 0; i < inflight; i++ {
		tokens <- struct{}{}
	}
	start := time.Now()
	go func() {
		w := bufio.NewWriterSize(in, 1<<16)
		for i := 0; i < calls; i++ {
			if len(tokens) == 0 || i%inflight == 0 {
				w.Flush()
			}
			<-tokens
			w.WriteString(`{"type":"call","id":"c` + strconv.Itoa(i) + `","fn":"add","args":[1,2]}` + "\n")
		}
		w.Flush()
	}()
	for i := 0; i < calls; i++ {
		if _, err := out.ReadBytes('\n'); err != nil {
			log.Fatalf("%s: %v after %d answers", prog, err, i)
		}
		tokens <- struct{}{}
	}
	elapsed := time.Since(start)
	in.Close()
	io.Copy(io.Discard, out)
	cmd.Wait()
	return float64(calls) / elapsed.Seconds()
}
