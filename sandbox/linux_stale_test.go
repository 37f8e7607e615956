//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

const orphanHelperEnv = "TETHER_SANDBOX_ORPHAN_HELPER"

// The test binary, re-executed with orphanHelperEnv set, plays a judge that
// starts a sandbox, reports what it made, and waits to be killed with -9.
func init() {
	if os.Getenv(orphanHelperEnv) != "1" {
		return
	}
	r, err := NewLinux(nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	proc, err := r.Start(context.Background(), Spec{Args: []string{"sleep", "600"}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	p := proc.(*linuxProcess)
	fmt.Println(p.pid, p.dir.base, strings.Join(p.cg.dirs, " "))
	select {}
}

func TestLinuxCleansUpAfterKilledJudge(t *testing.T) {
	requireLinuxRunner(t)
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), orphanHelperEnv+"=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	if err != nil || strings.HasPrefix(line, "error") {
		t.Fatalf("helper: %q %v", line, err)
	}
	fields := strings.Fields(line)
	var sandboxPid int
	fmt.Sscan(fields[0], &sandboxPid)
	left := fields[1:]
	for _, d := range left {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("the killed judge should have left %s: %v", d, err)
		}
	}
	if err := syscall.Kill(sandboxPid, 0); err != nil {
		t.Fatalf("the killed judge's sandbox should still run: %v", err)
	}

	if _, err := NewLinux(nil); err != nil { // the next judge cleans up
		t.Fatal(err)
	}
	for _, d := range left {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("still there after the next start: %s (%v)", d, err)
		}
	}
	// The orphan was reparented to the host's init, which reaps it soon.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(sandboxPid, 0) == nil && processStartTime(sandboxPid) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", sandboxPid)); len(st) > 0 && !strings.Contains(string(st), ") Z ") {
		t.Errorf("sandbox process %d still runs: %s", sandboxPid, st)
	}
}
