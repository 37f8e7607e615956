package judge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
	"github.com/tether-dev/tether/sig"
)

// typedEvaluator is a Go evaluator of testdata/typed written against the
// typed client sig.GoClient generates (client.go beside it): every call
// takes and returns the declared Go types. A wrong-typed result
// (*evaluator.ResultTypeError) is reported as WrongAnswer with its message.
const typedEvaluator = `package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"

	"github.com/tether-dev/tether/sdk/go/evaluator"
)

func main() {
	ctx := context.Background()
	r := evaluator.Default()
	c := Client{Runner: r}
	fail := func(what string, got, want any) {
		r.WrongAnswer(0, map[string]any{"message": fmt.Sprintf("%s: got %#v, want %#v", what, got, want)})
	}
	report := func(err error) {
		var rt *evaluator.ResultTypeError
		if errors.As(err, &rt) {
			r.WrongAnswer(0, map[string]any{"message": rt.Error()})
			return
		}
		r.RuntimeError(err.Error())
	}

	huge := new(big.Int).Lsh(big.NewInt(1), 70)
	xs := []int64{1, 2, math.MaxInt64}
	s, err := c.Summarize(ctx, xs, huge)
	if err != nil {
		report(err)
		return
	}
	sumXs := new(big.Int).Add(big.NewInt(3), big.NewInt(math.MaxInt64))
	mean, _ := new(big.Float).SetInt(sumXs).Float64()
	if s.Count != 3 || s.Total.Cmp(new(big.Int).Add(huge, sumXs)) != 0 || s.Mean != mean/3 || !reflect.DeepEqual(s.Names, map[string]bool{"even": true}) {
		fail("summarize", s, nil)
		return
	}
	if s, err = c.Summarize(ctx, nil, big.NewInt(-5)); err != nil || s.Count != 0 || s.Total.Int64() != -5 || s.Mean != 0 {
		fail("summarize of nothing", s, err)
		return
	}

	b := "b"
	p, err := c.Nearest(ctx, Point{}, []Point{{X: 5, Y: 5}, {X: 1, Y: 2, Label: &b}})
	if err != nil || p == nil || *p != (Point{X: 1, Y: 2, Label: p.Label}) || p.Label == nil || *p.Label != "b" {
		fail("nearest", p, err)
		return
	}
	if p, err = c.Nearest(ctx, Point{X: 1}, nil); err != nil || p != nil {
		fail("nearest of nothing", p, err)
		return
	}

	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	m, err := c.Pack(ctx, every, map[string][]string{"a": {"x", "y"}, "e": {}}, true, "hi")
	if err != nil || len(m) != 4 || !bytes.Equal(m["data"], every) || string(m["a"]) != "x,y" || m["e"] == nil || len(m["e"]) != 0 || string(m["extra"]) != "hi" {
		fail("pack", m, err)
		return
	}
	if m, err = c.Pack(ctx, nil, nil, false, nil); err != nil || m == nil || len(m) != 0 {
		fail("pack of nothing", m, err)
		return
	}
	if err := c.Reset(ctx); err != nil {
		report(err)
		return
	}
	r.Accept(100, nil)
}
`

// typedGoSolution is testdata/typed solved in Go with nothing but the
// functions (the glue declares Point; the solution declares Summary).
const typedGoSolution = `package main

import (
	"math/big"
	"strings"
)

type Summary struct {
	Count int64
	Total *big.Int
	Mean  float64
	Names map[string]bool
}

func summarize(xs []int64, big_ *big.Int) Summary {
	sum := new(big.Int)
	for _, x := range xs {
		sum.Add(sum, big.NewInt(x))
	}
	mean := 0.0
	if len(xs) > 0 {
		f, _ := new(big.Float).SetInt(sum).Float64()
		mean = f / float64(len(xs))
	}
	return Summary{Count: int64(len(xs)), Total: sum.Add(sum, big_), Mean: mean, Names: map[string]bool{"even": sum.Bit(0) == 0}}
}

func nearest(p Point, all []Point) *Point {
	var best *Point
	dist := func(q Point) int64 { return (q.X-p.X)*(q.X-p.X) + (q.Y-p.Y)*(q.Y-p.Y) }
	for i := range all {
		if best == nil || dist(all[i]) < dist(*best) {
			best = &all[i]
		}
	}
	return best
}

func pack(data []byte, tags map[string][]string, flag bool, extra any) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range tags {
		out[k] = []byte(strings.Join(v, ","))
	}
	if flag {
		out["data"] = data
	}
	if s, ok := extra.(string); ok {
		out["extra"] = []byte(s)
	}
	return out
}

func reset() {}
`

// A Go evaluator built on the typed client of testdata/typed (records,
// lists, maps, optionals, bytes, bigint, float, any, a function without a
// result) judges a Go solution of nothing but the functions Accepted, and
// reports a Python solution's result of another type as the client's
// *evaluator.ResultTypeError: WrongAnswer naming the function and types.
func TestGoTypedClient(t *testing.T) {
	testenv.Toolchain(t, "go")
	testenv.Python3(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	pj, err := os.ReadFile(filepath.Join("testdata", "typed", "problem.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), pj, 0o644); err != nil {
		t.Fatal(err)
	}
	evaluatorPath := filepath.Join(dir, "evaluator")
	p, err := LoadProblem(dir, []string{"./evaluator"})
	if err != nil {
		t.Fatal(err)
	}
	p.Runtime.Evaluator.Command = []string{evaluatorPath}
	client, err := sig.GoClient(p.Functions, "main")
	if err != nil {
		t.Fatal(err)
	}
	buildGoEvaluator(t, evaluatorPath, map[string]string{"client.go": string(client), "main.go": typedEvaluator})

	for _, c := range []struct {
		name, file, source string
		status             Status
		message            string
	}{
		{"a Go solution", "solution.go", typedGoSolution, Accepted, ""},
		{"a Python solution returning another type", "solution.py",
			"def summarize(xs, big):\n    return 'oops'\n\ndef nearest(p, all):\n    return None\n\n" +
				"def pack(data, tags, flag, extra):\n    return {}\n\ndef reset():\n    pass\n",
			WrongAnswer, "summarize returned a string, expected a Summary record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			opts := &Options{Runner: sandboxtest.Isolating(t)}
			if filepath.Ext(c.file) == ".go" {
				opts.BuildCache = sharedBuildCache(t)
			}
			r, err := Run(context.Background(), p, &Submission{Path: c.file, Code: []byte(c.source)}, opts)
			if err != nil {
				t.Fatal(err)
			}
			wantStatus(t, r, c.status)
			if msg, _ := details(t, r)["message"].(string); msg != c.message && c.message != "" {
				t.Errorf("message %q, want %q", msg, c.message)
			}
		})
	}
}

// buildGoEvaluator builds files, a package main importing the Go
// evaluator SDK of this module, into exe (on the host, offline).
func buildGoEvaluator(t *testing.T, exe string, files map[string]string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	files["go.mod"] = "module evaluator\n\ngo 1.26\n\nrequire github.com/tether-dev/tether v0.0.0\n\nreplace github.com/tether-dev/tether => " + root + "\n"
	files["go.sum"] = string(sum)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-o", exe, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the evaluator: %v\n%s", err, strings.TrimSpace(string(out)))
	}
}
