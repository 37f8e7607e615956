//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shared mount point of the new root stays empty on the host while a
// sandbox runs on it, and outlives the runner (no judge owns it).
func TestLinuxSharedRootStaysEmpty(t *testing.T) {
	tempRoot := t.TempDir()
	r := requireLinuxRunnerWith(t, &LinuxOptions{TempRoot: tempRoot})
	if r.root != filepath.Join(tempRoot, tempPrefix+"newroot") {
		t.Fatalf("root = %q, want the shared one in %s", r.root, tempRoot)
	}
	res := run(t, r, Spec{Args: pyArgs(`import os; open("made-inside", "w"); print(sorted(os.listdir("/")))`)}, "")
	if res.usage.ExitCode != 0 || !strings.Contains(res.stdout, "usr") {
		t.Fatalf("listing / inside: %+v", res)
	}
	entries, err := os.ReadDir(r.root)
	if err != nil || len(entries) != 0 {
		t.Errorf("shared root on the host: %v %v, want empty", entries, err)
	}
	r.Close()
	if _, err := os.Stat(r.root); err != nil {
		t.Errorf("shared root removed with the runner: %v", err)
	}
}

// A shared root that another user could write to is not used: each sandbox
// then gets a mount point of its own, removed with it.
func TestLinuxUnsafeSharedRootNotUsed(t *testing.T) {
	tempRoot := t.TempDir()
	shared := filepath.Join(tempRoot, tempPrefix+"newroot")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	r := requireLinuxRunnerWith(t, &LinuxOptions{TempRoot: tempRoot})
	if r.root != "" {
		t.Fatalf("root = %q, want none shared", r.root)
	}
	res := run(t, r, Spec{Args: []string{"true"}}, "")
	if res.usage.ExitCode != 0 {
		t.Fatalf("true: %+v", res)
	}
	entries := ownEntries(tempRoot)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
