package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// tether version and tether --version print one text: the version, the
// commit and the Go version, then the protocols.
func TestVersionAndFlagPrintTheSame(t *testing.T) {
	cmdOut, err := runCLI(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	flagOut, err := runCLI(t, "--version")
	if err != nil {
		t.Fatal(err)
	}
	if cmdOut != flagOut {
		t.Fatalf("tether version printed %q, tether --version %q", cmdOut, flagOut)
	}
	first, _, _ := strings.Cut(cmdOut, "\n")
	if !strings.HasPrefix(first, "tether ") || !strings.Contains(first, "(commit ") || !strings.Contains(first, runtime.Version()) {
		t.Fatalf("first line %q: want the version, the commit and %s", first, runtime.Version())
	}
	if !strings.Contains(cmdOut, "dual") {
		t.Fatalf("no protocols in %q", cmdOut)
	}
}

// The commit comes from the build info go build stamps; a module
// installed as module@version gives its version.
func TestDescribeBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99.1", Main: debug.Module{Version: "v1.4.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	want := "v1.4.0 (commit 0123456789ab+dirty, go1.99.1, " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if got := describeBuild(bi, "0.1.0-dev"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := describeBuild(bi, "v2.0.0"); !strings.HasPrefix(got, "v2.0.0 ") {
		t.Errorf("the linker's version lost: %q", got)
	}
	if got := describeBuild(nil, "v2.0.0"); !strings.Contains(got, "commit unknown") {
		t.Errorf("no build info: %q", got)
	}
}
