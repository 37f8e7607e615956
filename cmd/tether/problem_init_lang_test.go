package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// problem init --language cpp writes the C++ template and submissions
// beside the Python ones, and check judges each in its language.
func TestProblemInitLanguageCpp(t *testing.T) {
	testenv.Toolchain(t, "g++")
	testenv.Python3(t)
	dir := filepath.Join(t.TempDir(), "p")
	if out, _, err := problemCLI(t, "init", dir, "--language", "c++"); err != nil || !strings.Contains(out, "template.cpp") ||
		!strings.Contains(out, "submissions/compile_error/missing_semicolon.cpp") {
		t.Fatalf("init: %v\n%s", err, out)
	}
	out, _, err := problemCLI(t, "check", dir, "--json", "--build-cache", "off")
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	cpp := 0
	for _, s := range rep.Submissions {
		if strings.HasSuffix(s.File, ".cpp") {
			cpp++
		}
	}
	if !rep.OK || cpp != 3 {
		t.Fatalf("report %+v, want ok with 3 C++ submissions", rep)
	}
	if _, _, err := problemCLI(t, "init", filepath.Join(t.TempDir(), "q"), "--template", "llm", "--language", "cpp"); err == nil ||
		!strings.Contains(err.Error(), "no cpp files") {
		t.Errorf("a template without C++ files: %v", err)
	}
}
