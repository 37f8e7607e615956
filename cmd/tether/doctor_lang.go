package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox"
)

// languageCheck is what tether doctor found of one language.
type languageCheck struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Disabled bool   `json:"disabled,omitempty"`
	Found    bool   `json:"found"`
	Version  string `json:"version,omitempty"`
	Error    string `json:"error,omitempty"` // why the toolchain is missing
	// Smoke is "ok", "skipped" or why the compile+run smoke test failed.
	Smoke   string      `json:"smoke"`
	Compile *lang.Stats `json:"compile,omitempty"`
	Fix     string      `json:"fix,omitempty"`
}

// languageFixes are the Debian packages of each built-in toolchain.
var languageFixes = map[string]string{
	"python": "apt-get install python3", "cpp": "apt-get install g++", "c": "apt-get install gcc",
	"java": "apt-get install default-jdk-headless", "javascript": "apt-get install nodejs",
	"go": "install Go (https://go.dev/dl/) with its bin on PATH", "rust": "apt-get install rustc",
}

// checkLanguages reports each language of t: its toolchain's version, and
// a build and start of its smoke solution in runner (nil: no smoke test).
func checkLanguages(ctx context.Context, t *lang.Table, runner sandbox.Runner) []languageCheck {
	var out []languageCheck
	for _, l := range t.Languages() {
		c := languageCheck{ID: l.ID, Name: l.Name, Disabled: l.Disabled, Smoke: "skipped"}
		if l.Disabled {
			out = append(out, c)
			continue
		}
		tool := l.Run[0]
		if l.Compiled() {
			tool = l.Compile[0]
		}
		if _, err := exec.LookPath(tool); err != nil {
			c.Error = fmt.Sprintf("%s not found on PATH", tool)
			c.Fix = languageFixes[l.ID]
			out = append(out, c)
			continue
		}
		c.Found = true
		if v, err := lang.Version(ctx, l, nil); err == nil {
			c.Version = v
		} else {
			c.Error = err.Error()
		}
		if runner != nil && l.Smoke != "" {
			stats, err := judge.SmokeTest(ctx, runner, l)
			if err != nil {
				c.Smoke = err.Error()
			} else {
				c.Smoke = "ok"
			}
			if l.Compiled() {
				c.Compile = &stats
			}
		}
		out = append(out, c)
	}
	return out
}

func printLanguages(w io.Writer, checks []languageCheck) {
	fmt.Fprintln(w, "\nlanguages (docs/languages.md):")
	for _, c := range checks {
		switch {
		case c.Disabled:
			fmt.Fprintf(w, "  %-10s disabled by the languages file\n", c.ID)
		case !c.Found:
			fmt.Fprintf(w, "  %-10s MISSING: %s\n", c.ID, c.Error)
			if c.Fix != "" {
				fmt.Fprintf(w, "             fix: %s\n", c.Fix)
			}
		default:
			smoke := "compile+run " + c.Smoke
			if c.Smoke == "skipped" {
				smoke = "no smoke test"
			}
			fmt.Fprintf(w, "  %-10s %s; %s\n", c.ID, c.Version, smoke)
		}
	}
}
