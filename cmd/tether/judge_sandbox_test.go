package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
)

// judgeCLIWithStderr runs `tether judge args...` and returns stdout and stderr.
func judgeCLIWithStderr(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return judgeCLIOn(t, thisMachine, args...)
}

// judgeCLIOn runs `tether judge args...` on m and returns stdout and stderr.
func judgeCLIOn(t *testing.T, m machine, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := runTether(context.Background(), m, nil, &out, &errOut, append([]string{"judge"}, args...)...)
	return out.String(), errOut.String(), err
}

// withoutLinuxSandbox plays a machine that cannot run the linux sandbox.
func withoutLinuxSandbox() machine {
	missing := fmt.Errorf("%w: not running as root (namespaces, mounts and cgroups need it)", sandbox.ErrLinuxUnavailable)
	m := thisMachine
	m.selectSandbox = func(kind string) (sandbox.Runner, string, error) {
		return sandbox.SelectWith(kind, func() (sandbox.Runner, error) { return nil, missing })
	}
	return m
}

func TestJudgeSandboxNoneWarnsLoudly(t *testing.T) {
	dir, sol := shellProblem(t)
	out, stderr, err := judgeCLIWithStderr(t, dir, sol, "--sandbox", "none")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "!!! WARNING: NO SANDBOX") || !strings.Contains(out, "sandbox:  none — NO ISOLATION") {
		t.Fatalf("no loud warning; stdout:\n%s\nstderr:\n%s", out, stderr)
	}
	out, stderr, err = judgeCLIWithStderr(t, dir, sol, "--sandbox", "none", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res judge.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Sandbox != "none" || !strings.Contains(stderr, "NO SANDBOX") {
		t.Fatalf("json %q (%v), stderr %q", out, err, stderr)
	}
}

func TestJudgeSandboxAutoFallsBackWithTheReason(t *testing.T) {
	m := withoutLinuxSandbox()
	dir, sol := shellProblem(t)
	out, stderr, err := judgeCLIOn(t, m, dir, sol, "--json") // --sandbox auto is the default
	if err != nil {
		t.Fatal(err)
	}
	var res judge.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Sandbox != "none" {
		t.Fatalf("json %q: %v", out, err)
	}
	if !strings.Contains(stderr, "NO SANDBOX") || !strings.Contains(stderr, "not running as root") || !strings.Contains(stderr, "fix: ") {
		t.Fatalf("the fallback does not say why and the fix: %q", stderr)
	}
}

func TestJudgeSandboxLinuxSaysWhatIsMissing(t *testing.T) {
	m := withoutLinuxSandbox()
	dir, sol := shellProblem(t)
	_, _, err := judgeCLIOn(t, m, dir, sol, "--sandbox", "linux")
	if !errors.Is(err, sandbox.ErrLinuxUnavailable) || !strings.Contains(err.Error(), "not running as root") {
		t.Fatalf("err = %v", err)
	}
	if _, _, err := judgeCLIOn(t, m, dir, sol, "--sandbox", "docker"); !errors.Is(err, sandbox.ErrUnknownKind) {
		t.Fatalf("--sandbox docker: %v", err)
	}
}

// The worker logs auto's fallback as a WARN record (its log is what its
// operators read), with the reason and the fix, before anything else can
// fail.
func TestWorkerLogsTheSandboxFallback(t *testing.T) {
	m := withoutLinuxSandbox()
	var out, errOut bytes.Buffer
	err := runTether(context.Background(), m, nil, &out, &errOut,
		"worker", "--log-format", "json", "--work-dir", t.TempDir(), "--broker", "no-such-broker://x")
	if err == nil || !strings.Contains(err.Error(), "--broker") {
		t.Fatalf("worker with no broker: %v", err)
	}
	var warned bool
	for _, line := range strings.Split(strings.TrimSpace(errOut.String()), "\n") {
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("stderr line %q is not a log record: %v", line, err)
		}
		if rec.Level == "WARN" && strings.Contains(rec.Msg, "NO SANDBOX") &&
			strings.Contains(rec.Msg, "not running as root") && strings.Contains(rec.Msg, "fix: ") {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("no WARN record with the fallback's reason and fix:\n%s", errOut.String())
	}
}
