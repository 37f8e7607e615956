package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sandbox"
)

func runDoctor(t *testing.T, args ...string) string {
	t.Helper()
	return runDoctorOn(t, thisMachine, args...)
}

// runDoctorOn runs tether doctor on m.
func runDoctorOn(t *testing.T, m machine, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := runTether(context.Background(), m, nil, &out, &out, append([]string{"doctor"}, args...)...); err != nil {
		t.Fatalf("doctor: %v: %s", err, out.String())
	}
	return out.String()
}

// doctor --json on this machine: one object with what auto picks, the
// three sandboxes in the order auto tries them, and the checks, each
// missing one with its fix.
func TestDoctorJSON(t *testing.T) {
	var d struct {
		Auto      string `json:"auto"`
		Warning   string `json:"warning"`
		Sandboxes []struct {
			Kind      string `json:"kind"`
			Available *bool  `json:"available"`
			Why       string `json:"why"`
		} `json:"sandboxes"`
		Checks []struct {
			Name     string   `json:"name"`
			OK       *bool    `json:"ok"`
			Found    string   `json:"found"`
			Fix      string   `json:"fix"`
			NeededBy []string `json:"needed_by"`
		} `json:"checks"`
		Languages []map[string]any `json:"languages"`
	}
	out := runDoctor(t, "--json")
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	var ids []string
	for _, l := range d.Languages {
		id, _ := l["id"].(string)
		ids = append(ids, id)
		if l["found"] == true && l["version"] == "" {
			t.Errorf("language %s found without a version: %v", id, l)
		}
		if l["found"] == false && l["error"] == "" {
			t.Errorf("language %s missing without a reason: %v", id, l)
		}
	}
	if strings.Join(ids, ",") != "c,cpp,go,java,javascript,python,rust" {
		t.Errorf("languages %v, want every built-in one", ids)
	}
	var kinds []string
	firstAvailable := ""
	for _, s := range d.Sandboxes {
		kinds = append(kinds, s.Kind)
		if s.Available == nil {
			t.Errorf("%s: no available field", s.Kind)
		} else if *s.Available && firstAvailable == "" {
			firstAvailable = s.Kind
		} else if !*s.Available && s.Why == "" {
			t.Errorf("%s: unavailable without a reason", s.Kind)
		}
	}
	if strings.Join(kinds, ",") != "linux,rootless,none" {
		t.Errorf("sandboxes %v, want linux, rootless, none", kinds)
	}
	if d.Auto != firstAvailable {
		t.Errorf("auto = %q, want the first available, %q", d.Auto, firstAvailable)
	}
	if (d.Warning == "") != (d.Auto == "linux") {
		t.Errorf("auto = %q with warning %q: want one exactly when auto falls back", d.Auto, d.Warning)
	}
	names := map[string]bool{}
	for _, c := range d.Checks {
		names[c.Name] = true
		if c.OK == nil || c.Found == "" || len(c.NeededBy) == 0 {
			t.Errorf("check %+v: want ok, found and needed_by", c)
		} else if !*c.OK && c.Fix == "" {
			t.Errorf("check %s is missing but says no fix", c.Name)
		}
	}
	for _, n := range []string{"root", "user_namespaces", "cgroups", "seccomp", "landlock", "python"} {
		if !names[n] {
			t.Errorf("no %s check", n)
		}
	}
}

// On a machine that lacks a piece, the text names it MISSING with the
// command that fixes it, and says auto falls back.
func TestDoctorShowsMissingWithFix(t *testing.T) {
	m := thisMachine
	m.diagnose = func() sandbox.Diagnosis {
		return sandbox.Diagnosis{
			Auto: "none",
			Sandboxes: []sandbox.Offer{
				{Kind: "linux", Why: "not running as root"},
				{Kind: "rootless", Why: "this user cannot make user namespaces"},
				{Kind: "none", Available: true, Why: "no isolation at all"},
			},
			Checks: []sandbox.Check{{Name: "user_namespaces", Found: "kernel.apparmor_restrict_unprivileged_userns=1",
				Fix: "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0", NeededBy: []string{"rootless"}}},
		}
	}
	out := runDoctorOn(t, m)
	for _, want := range []string{"--sandbox auto picks: none", "rootless  NOT available: this user cannot make user namespaces",
		"MISSING user_namespaces", "fix: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}

// When auto falls back, the doctor says so first and loudly, with the
// warning the judge and the worker show: what runs instead, why, the fix.
func TestDoctorAnnouncesTheFallbackLoudly(t *testing.T) {
	linuxErr := fmt.Errorf("%w: cgroup v1: no pids controller", sandbox.ErrLinuxUnavailable)
	m := thisMachine
	m.diagnose = func() sandbox.Diagnosis {
		return sandbox.Diagnosis{
			Auto:    "rootless",
			Warning: sandbox.FallbackWarning(linuxErr, nil),
			Sandboxes: []sandbox.Offer{
				{Kind: "linux", Why: linuxErr.Error()},
				{Kind: "rootless", Available: true},
				{Kind: "none", Available: true, Why: "no isolation at all"},
			},
		}
	}
	out := runDoctorOn(t, m)
	first, _, _ := strings.Cut(strings.TrimLeft(out, "\n"), "\n")
	for _, want := range []string{"!!! WARNING: ROOTLESS SANDBOX", "no pids controller", "fix: run `tether doctor`"} {
		if !strings.Contains(first, want) {
			t.Errorf("doctor's first line lacks %q:\n%s", want, out)
		}
	}
}
