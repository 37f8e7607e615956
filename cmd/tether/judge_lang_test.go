package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/judge"
)

// tether judge PROBLEM solution.cpp: the language from the extension, the
// build cache's hit on the second run, a compile error as the verdict, an
// unknown --language as a usage error naming the known ones.
func TestJudgeCppSolution(t *testing.T) {
	testenv.Toolchain(t, "g++")
	testenv.Python3(t)
	cache := filepath.Join(t.TempDir(), "build")
	aplusb := filepath.Join("..", "..", "examples", "aplusb")
	for i, cached := range []bool{false, true} {
		res, _ := judgeJSON(t, aplusb, filepath.Join(aplusb, "solution.cpp"), "--language=", "--build-cache", cache)
		if res.Status != judge.Accepted || res.Language != "cpp" || res.Compile == nil || res.Compile.Cached != cached {
			t.Fatalf("run %d: status %v language %q compile %+v, want Accepted, cpp, cached %v", i, res.Status, res.Language, res.Compile, cached)
		}
	}
	out, err := runJudgeCLI(t, aplusb, filepath.Join(aplusb, "submissions", "compile_error", "missing_semicolon.cpp"), "--language=", "--build-cache", "off")
	if err != nil || !strings.Contains(out, "verdict:  CompileError") || !strings.Contains(out, "missing_semicolon") && !strings.Contains(out, "main.cpp:4:") {
		t.Fatalf("compile error: %v\n%s", err, out)
	}
	_, err = runJudgeCLI(t, aplusb, filepath.Join(aplusb, "solution.py"), "--language", "cobol", "--build-cache", "off")
	if err == nil || !strings.Contains(err.Error(), "known: c, cpp") {
		t.Fatalf("--language cobol: %v", err)
	}
}
