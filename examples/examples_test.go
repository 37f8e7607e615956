// Package examples_test judges the problem examples of this folder: each
// declares its functions in problem.json, and its solution in every
// built-in language, nothing but those functions, is Accepted under the
// linux sandbox (and, for a part of them, the rootless one).
package examples_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
	"github.com/tether-dev/tether/schemas"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// solutionFiles are where every example keeps its solution in each
// language (the READMEs say so): beside problem.json, but Go's in go/ (a
// module of its own: with no main, it does not build as part of tether's).
var solutionFiles = []string{"solution.py", "solution.cpp", "solution.c", "Solution.java", "solution.js", "solution.rs", "go/solution.go"}

// explicitForms are solutions kept in their host's explicit form, which a
// problem with declared functions accepts too: gosolution's point is the Go
// solution SDK itself.
var explicitForms = []string{"gosolution/solution/main.go"}

// toolchains are what a solution file's language needs on PATH, by its
// extension (python3 every evaluator needs anyway).
var toolchains = map[string][]string{
	".cpp": {"g++"}, ".c": {"gcc"}, ".java": {"javac", "java"}, ".js": {"node"}, ".rs": {"rustc"}, ".go": {"go"},
}

// Every example × every built-in language, Accepted with nothing but the
// declared functions, under the linux sandbox (as `tether judge --sandbox
// linux` runs them). The runs share one build cache, so the C and C++
// hosts and Go's standard library compile once; -parallel (GOMAXPROCS by
// default) runs that many at a time.
func TestExamplesInEveryLanguage(t *testing.T) {
	testenv.Python3(t)
	runner := sandboxtest.Isolating(t) // linux as root; rootless as another user (TestExamplesInEveryLanguageRootless)
	// make test's cache, shared with the judge package's tests, when set.
	cacheDir := testenv.SharedBuildCache()
	if cacheDir == "" {
		cacheDir = t.TempDir()
	}
	cache, err := lang.OpenCache(cacheDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	opts := judge.Options{Runner: runner, BuildCache: cache, LM: lmstart.Starter(nil, nil), Languages: patientLanguages(t)}

	covered := map[string]bool{}
	for _, file := range solutionFiles {
		l, err := lang.Builtin().ForFile(file)
		if err != nil {
			t.Fatal(err)
		}
		covered[l.ID] = true
	}
	for _, l := range lang.Builtin().Languages() {
		if !covered[l.ID] {
			t.Errorf("no solution file for the built-in language %s", l.ID)
		}
	}

	problems, _ := filepath.Glob(filepath.Join("*", "problem.json"))
	if len(problems) < 7 {
		t.Fatalf("found %d examples with a problem.json, want at least 7", len(problems))
	}
	type solution struct{ dir, file string }
	var solutions []solution
	for _, pj := range problems {
		dir := filepath.Dir(pj)
		p, err := judge.LoadProblem(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Functions == nil || len(p.Functions.Functions) == 0 {
			t.Errorf("examples/%s declares no functions (problem.json functions)", dir)
		}
		for _, file := range solutionFiles {
			solutions = append(solutions, solution{dir, file})
		}
	}
	for _, path := range explicitForms {
		dir, file, _ := strings.Cut(path, "/")
		solutions = append(solutions, solution{dir, file})
	}
	for _, s := range solutions {
		t.Run(s.dir+"/"+s.file, func(t *testing.T) {
			t.Parallel()
			for _, tool := range toolchains[filepath.Ext(s.file)] {
				testenv.Toolchain(t, tool)
			}
			wantAccepted(t, s.dir, s.file, opts)
		})
	}
}

// patientLanguages are the built-in languages with compiles allowed 5
// minutes of wall time and 2 of CPU (times TETHER_TIME_SCALE), as an
// operator's languages file may allow: a C++ compile of tether.hpp takes
// 5 s of CPU and Go's first warms its cache for 20 s, and beside the other
// runs of this test and other packages' tests the defaults' 30 s of wall
// time run out. The examples' own limits are left alone.
func patientLanguages(t *testing.T) *lang.Table {
	t.Helper()
	wall, cpu := int64(300000*testenv.TimeScale()), int64(120000*testenv.TimeScale())
	var langs []*lang.Language
	for _, l := range lang.Builtin().Languages() {
		patient := *l
		patient.Limits.TimeLimitMs = max(patient.Limits.TimeLimitMs, wall)
		patient.Limits.CPUTimeLimitMs = max(patient.Limits.CPUTimeLimitMs, cpu)
		langs = append(langs, &patient)
	}
	tab, err := lang.NewTable(langs)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// wantAccepted judges the solution file of the example in dir (its
// extension picks the language) and wants it Accepted.
func wantAccepted(t *testing.T, dir, file string, opts judge.Options) {
	t.Helper()
	p, err := judge.LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := judge.LoadSubmission(filepath.Join(dir, file))
	if err != nil {
		t.Fatalf("examples/%s has no solution %s: %v", dir, file, err)
	}
	r, err := judge.Run(context.Background(), p, sub, &opts)
	if err != nil {
		t.Fatal(err)
	}
	if issues, err := schemas.CheckValue(schemas.Result, r); err != nil || len(issues) > 0 {
		t.Errorf("the result is outside schemas/result.schema.json: %v %v", err, issues)
	}
	if r.Status != judge.Accepted {
		b, _ := json.MarshalIndent(r, "", " ")
		if len(b) > 4000 {
			b = b[:4000]
		}
		t.Fatalf("examples/%s/%s: %v, want Accepted; result:\n%s", dir, file, r.Status, b)
	}
}
