package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// problem init writes the templates of a problem that declares functions;
// problem templates writes them again only with --force, or one language
// with --language; problem pack carries them.
func TestProblemTemplatesWrittenAndPacked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	out, _, err := problemCLI(t, "init", dir, "--template", "aplusb")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"templates/template.cpp", "templates/template.c", "templates/template.py", "templates/template.js", "templates/template.java", "templates/template.rs", "templates/template.go"} {
		if !strings.Contains(out, f) {
			t.Errorf("init does not list %s:\n%s", f, out)
		}
	}
	cpp, err := os.ReadFile(filepath.Join(dir, "templates", "template.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "// Return a + b; the numbers may exceed 64 bits.\ntether::json add(tether::json a, tether::json b) {\n  return {};\n}\n"; !strings.HasSuffix(string(cpp), want) {
		t.Errorf("template.cpp:\n%s\nwant it to end with\n%s", cpp, want)
	}
	py, _ := os.ReadFile(filepath.Join(dir, "templates", "template.py"))
	if want := "def add(a: int, b: int) -> int:\n    \"\"\"Return a + b; the numbers may exceed 64 bits.\"\"\"\n    return 0\n"; !strings.HasSuffix(string(py), want) {
		t.Errorf("template.py:\n%s\nwant it to end with\n%s", py, want)
	}

	if _, _, err := problemCLI(t, "templates", dir); err == nil || !strings.Contains(err.Error(), "templates/template.cpp exists; --force replaces it") {
		t.Errorf("templates over existing files: %v", err)
	}
	os.Remove(filepath.Join(dir, "templates", "template.py"))
	out, _, err = problemCLI(t, "templates", dir, "--language", "py")
	if err != nil || out != "wrote templates/template.py\n" {
		t.Errorf("templates --language py: %v\n%s", err, out)
	}
	if _, _, err := problemCLI(t, "templates", dir, "--language", "kotlin", "--force"); err == nil || !strings.Contains(err.Error(), `kotlin`) {
		t.Errorf("templates --language kotlin: %v", err)
	}

	zipPath := filepath.Join(t.TempDir(), "p.zip")
	if _, _, err := problemCLI(t, "pack", dir, "-o", zipPath); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	for _, want := range []string{"templates/template.cpp", "templates/template.py"} {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, want) }) {
			t.Errorf("the pack holds %v, not %s", names, want)
		}
	}
}

func TestProblemCheckNamesTheBadType(t *testing.T) {
	dir := brokenProblem(t, nil)
	data, _ := os.ReadFile(filepath.Join(dir, "problem.json"))
	os.WriteFile(filepath.Join(dir, "problem.json"), []byte(strings.Replace(string(data), `{"name": "b", "type": "bigint"}`, `{"name": "b", "type": "integr"}`, 1)), 0o644)
	out, _, err := problemCLI(t, "check", dir, "--sandbox", "none")
	want := `problem.json: functions[0].params[1].type: problem.json is not valid: unknown type "integr" (known: int, bigint, float, bool, string, bytes, list<T>, map<string,T>, optional<T>, any)`
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("check: %v\n%s\nwant %s", err, out, want)
	}
	if _, _, err := problemCLI(t, "templates", dir, "--force"); err == nil || !strings.Contains(err.Error(), "functions[0].params[1].type") {
		t.Errorf("templates of a broken declaration: %v", err)
	}
}
