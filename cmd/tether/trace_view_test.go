package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pageData is the run data a page carries (see trace/view): what the
// tests read back.
type pageData struct {
	Header struct {
		Verdict string `json:"verdict"`
	} `json:"header"`
	Fns   []string `json:"fns"`
	Calls struct {
		ID     []string `json:"id"`
		Fn     []int    `json:"fn"`
		Side   []int    `json:"side"`
		Parent []int    `json:"parent"`
		Args   []string `json:"args"`
		Answer []string `json:"ans"`
	} `json:"calls"`
}

func readPage(t *testing.T, path string) pageData {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	const open = `<script type="application/json" id="run-data">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatalf("%s has no run data", path)
	}
	data := page[i+len(open):]
	data = data[:strings.Index(data, "</script>")]
	var p pageData
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// tether judge --trace-html writes the page of the run, and tether trace
// view makes the same page from a --trace file: examples/capability's call
// with its capabilities inside it, arguments and answers included.
func TestTraceHTMLOfCapabilityExample(t *testing.T) {
	dir := t.TempDir()
	direct, traced, file := filepath.Join(dir, "direct.html"), filepath.Join(dir, "view.html"), filepath.Join(dir, "run.trace")
	if _, err := runJudgeCLI(t, "../../examples/capability", "../../examples/capability/solution.py", "--sandbox", "none",
		"--trace-html", direct, "--trace", file); err != nil {
		t.Fatal(err)
	}
	if out, err := runTraceCLI(t, "view", file, "-o", traced); err != nil || strings.TrimSpace(out) != traced {
		t.Fatalf("trace view: %v: %s", err, out)
	}
	for _, path := range []string{direct, traced} {
		p := readPage(t, path)
		if p.Header.Verdict != "Accepted" {
			t.Errorf("%s: verdict %q, want Accepted", path, p.Header.Verdict)
		}
		calls, caps := 0, 0
		for i := range p.Calls.ID {
			switch p.Calls.Side[i] {
			case 0:
				calls++
				if p.Calls.Args[i] == "" || p.Calls.Answer[i] == "" {
					t.Errorf("%s: call %s lacks its arguments or answer", path, p.Calls.ID[i])
				}
			case 1:
				caps++
				if p.Calls.Parent[i] < 0 {
					t.Errorf("%s: capability %s (%s) is not inside a call", path, p.Calls.ID[i], p.Fns[p.Calls.Fn[i]])
				}
			}
		}
		if calls == 0 || caps == 0 {
			t.Errorf("%s: %d calls and %d capabilities, want both", path, calls, caps)
		}
	}
}

func TestTraceViewRefusesWhatIsNotATrace(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(file, []byte(`{"title":"not a trace"}`+"\n"), 0o644)
	if _, err := runTraceCLI(t, "view", file); err == nil || !strings.Contains(err.Error(), "not a trace file") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(strings.TrimSuffix(file, ".json") + ".html"); err == nil {
		t.Error("a page was written for a file that is not a trace")
	}
}
