//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

const orphanHelperEnv = "TETHER_SANDBOX_ORPHAN_HELPER"

// The test binary, re-executed with orphanHelperEnv set, plays a judge that
// starts a sandbox, reports what it made (the sandbox, the cgroups of its
// prepared start threads, and its owner locks), and waits to be killed
// with -9. With orphanHelperEnv=foreign it plays a judge whose pid means
// nothing to the test (one in another PID namespace): its tag names a
// start time no process here has.
func init() {
	mode := os.Getenv(orphanHelperEnv)
	if mode == "" {
		return
	}
	if mode == "foreign" {
		ownerTag = fmt.Sprintf("%d-%d-%s", os.Getpid(), uint64(1)<<40, randomHex(8))
		judgeCPUGroup = cgroupParentName + "-" + ownerTag
	}
	r, err := NewLinux(&LinuxOptions{WarmStarts: 2})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	// The runner prepares two threads when it is made; the start takes one
	// (a warm start does not refill), so one stays prepared.
	if _, err := waitWarm(r.warm, 2); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	proc, err := r.Start(context.Background(), Spec{Args: []string{"sleep", "600"}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	p := proc.(*linuxProcess)
	made := append([]string{p.dir.base}, p.cg.dirs...)
	warm, err := waitWarm(r.warm, 1)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for _, t := range warm {
		made = append(made, t.cg.dirs...)
	}
	if !p.cg.v2 { // the judge's own group in the cpu hierarchy (judgeCPUGroup)
		made = append(made, filepath.Dir(p.cg.cpuDir))
	}
	ownerLocks.Lock()
	for _, f := range ownerLocks.held {
		made = append(made, f.Name())
	}
	ownerLocks.Unlock()
	fmt.Println(p.pid, p.cg.memDir, strings.Join(made, " "))
	select {}
}

// startJudgeHelper starts the helper judge (mode: orphanHelperEnv's
// value) with attr and returns it, the pid of its sandbox as it sees it,
// its sandbox's memory cgroup, and every dir it made.
func startJudgeHelper(t *testing.T, mode string, attr *syscall.SysProcAttr) (helper *exec.Cmd, sandboxPid int, memDir string, made []string) {
	t.Helper()
	helper = exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), orphanHelperEnv+"="+mode)
	helper.SysProcAttr = attr
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { helper.Process.Kill(); helper.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		t.Fatalf("helper: %q %v", line, err)
	}
	fields := strings.Fields(line)
	fmt.Sscan(fields[0], &sandboxPid)
	return helper, sandboxPid, fields[1], fields[2:]
}

func TestLinuxCleansUpAfterKilledJudge(t *testing.T) {
	requireLinuxRunner(t)
	helper, sandboxPid, _, left := startJudgeHelper(t, "1", nil)
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	for _, d := range left {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("the killed judge should have left %s: %v", d, err)
		}
	}
	// The judge's death closed the lifeline: the placeholder read EOF and
	// exited, and the kernel killed the rest of its PID namespace, with no
	// help from another judge. (The orphans are reparented to the host's
	// init, which reaps them.)
	deadline := time.Now().Add(5 * time.Second)
	for processRuns(sandboxPid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if processRuns(sandboxPid) {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", sandboxPid))
		t.Errorf("sandbox process %d outlived its judge by 5 s: %s", sandboxPid, st)
	}

	next, err := NewLinux(nil) // the next judge removes the rest
	if err != nil {
		t.Fatal(err)
	}
	next.Close()
	for _, d := range left {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("still there after the next start: %s (%v)", d, err)
		}
	}
}

// processRuns: pid exists and is not a zombie.
func processRuns(pid int) bool {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(st), ") Z ")
}

// A judge whose pid means nothing here (in another PID namespace: another
// container sharing /tmp and the cgroup tree) holds its owner locks, so
// the clean-up of a judge started beside it leaves its running sandbox
// alone; once it is gone, the next clean-up removes all it made.
func TestStaleCleanupSparesALiveJudgeInAnotherPIDNamespace(t *testing.T) {
	requireLinuxRunner(t)
	helper, _, memDir, made := startJudgeHelper(t, "foreign", &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID})
	cleanUp := func() {
		t.Helper()
		next, err := NewLinux(nil)
		if err != nil {
			t.Fatal(err)
		}
		next.Close()
	}
	cleanUp()
	for _, d := range made {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the clean-up removed %s of a live judge: %v", d, err)
		}
	}
	procs, err := os.ReadFile(filepath.Join(memDir, "cgroup.procs"))
	if err != nil || len(strings.Fields(string(procs))) == 0 {
		t.Errorf("the live judge's sandbox no longer runs: cgroup.procs %q (%v)", procs, err)
	}

	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	cleanUp()
	for _, d := range made {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("still there after the judge died and the next start: %s (%v)", d, err)
		}
	}
}

// ownEntries lists what this judge process has in dir besides its owner lock.
func ownEntries(dir string) []string {
	entries, _ := filepath.Glob(filepath.Join(dir, tempPrefix+ownerTag+"-*"))
	var own []string
	for _, e := range entries {
		if !strings.HasSuffix(e, ownerLockSuffix) {
			own = append(own, e)
		}
	}
	return own
}

// A dead judge's cgroup that is empty but cannot be removed is set aside
// under a name no judge claims, and the cleanup goes on, even when an
// earlier set-aside took the plain name: one such leftover must not stop
// every later runner (under --sandbox auto that would mean a weaker
// sandbox).
func TestStaleCgroupThatCannotBeRemovedIsSetAsideUniquely(t *testing.T) {
	parent := t.TempDir()
	dead := "1-1-1" // pid 1 did not start at tick 1: its judge is gone
	if ownerAlive(parent, "", dead) {
		t.Skip("pid 1 started at tick 1 on this machine")
	}
	stale := parent + "/" + dead
	for _, dir := range []string{stale, parent + "/" + leakedPrefix + dead} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/cgroup.procs", nil, 0o644); err != nil { // empty: no process left
			t.Fatal(err)
		}
	}
	saved := rmdirCgroup
	defer func() { rmdirCgroup = saved }()
	rmdirCgroup = func(string) error { return syscall.EBUSY }
	if err := removeStale([]string{parent}, t.TempDir()); err != nil {
		t.Fatalf("removeStale: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the stale cgroup is still under its own name: %v", err)
	}
	aside, _ := filepath.Glob(parent + "/" + leakedPrefix + dead + "-*")
	if len(aside) != 1 {
		t.Fatalf("set aside as %v, want one new leaked- name", aside)
	}
	if !ownerAlive(parent, "", filepath.Base(aside[0])) {
		t.Fatal("the set-aside name must read as not ours")
	}
}

// A dead judge's cgroup that holds a set-aside cgroup, and set-aside
// cgroups the kernel has let go of, are removed leaf first: none is left
// behind, neither under its name nor set aside again.
func TestStaleCgroupsWithLeakedChildrenAreRemoved(t *testing.T) {
	r := requireLinuxRunner(t)
	dead := fmt.Sprintf("%d-%d-%s", os.Getpid(), uint64(1)<<40, randomHex(8)) // no such start time: gone
	var made, parents []string
	mkdir := func(dir string) {
		t.Helper()
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		made = append(made, dir)
		t.Cleanup(func() { syscall.Rmdir(dir) })
	}
	for _, parent := range r.cgroups.parentDirs() {
		if filepath.Base(parent) == judgeCPUGroup {
			continue // this judge's own group: the dead judge's is made below
		}
		parents = append(parents, parent)
		mkdir(filepath.Join(parent, dead+"-1"))
		mkdir(filepath.Join(parent, dead+"-1", leakedPrefix+dead+"-2-0000"))
		mkdir(filepath.Join(parent, leakedPrefix+dead+"-3-0000"))
		mkdir(filepath.Join(parent, leakedPrefix+dead+"-3-0000", leakedPrefix+dead+"-4-0000"))
	}
	homes := r.cgroups.judgeGroupHomes()
	for _, home := range homes {
		group := filepath.Join(home, cgroupParentName+"-"+dead)
		mkdir(group)
		mkdir(filepath.Join(group, dead+ownerLockSuffix)) // its owner lock, not held
		mkdir(filepath.Join(group, leakedPrefix+dead+"-5-0000"))
		mkdir(filepath.Join(home, leakedPrefix+cgroupParentName+"-"+dead+"-0000")) // a judge group set aside
	}
	if err := errors.Join(removeStale(parents, ""), removeStaleJudgeGroups(homes)); err != nil {
		t.Fatalf("clean-up: %v", err)
	}
	for _, d := range made {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("still there: %s (%v)", d, err)
		}
	}
	for _, dir := range append(parents, homes...) {
		if aside, _ := filepath.Glob(filepath.Join(dir, leakedPrefix+"*"+dead+"*")); len(aside) > 0 {
			t.Errorf("set aside instead of removed: %v", aside)
		}
	}
}

// A dead judge's owner lock outlives its other entries, and stays while
// one of them could not be removed: the next clean-up then finds the lock
// free and tries again, rather than finding none and going by the pid.
func TestStaleOwnerLockGoesLast(t *testing.T) {
	parent := t.TempDir()
	dead := "1-1099511627776-0123456789abcdef"
	for _, name := range []string{dead + ownerLockSuffix, dead + "-1", dead + "-2"} {
		if err := os.Mkdir(filepath.Join(parent, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	remove := func(fail string) func(string) error {
		return func(dir string) error {
			order = append(order, filepath.Base(dir))
			if filepath.Base(dir) == fail {
				return errors.New("busy")
			}
			return os.Remove(dir)
		}
	}
	alive := func(name string) bool { return ownerAlive(parent, "", name) }
	if errs := removeDead(parent, alive, remove(dead+"-1")); len(errs) != 1 {
		t.Fatalf("errors %v, want the one of %s-1", errs, dead)
	}
	if _, err := os.Stat(filepath.Join(parent, dead+ownerLockSuffix)); err != nil {
		t.Fatalf("the owner lock went while %s-1 stays: %v (removed in order %v)", dead, err, order)
	}
	order = nil
	if errs := removeDead(parent, alive, remove("")); len(errs) != 0 {
		t.Fatal(errs)
	}
	if want := []string{dead + "-1", dead + ownerLockSuffix}; !slices.Equal(order, want) {
		t.Errorf("removed in order %v, want %v", order, want)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

// A judge that first makes a dir in a temp dir removes what this
// user's dead judges left there (their owner locks too, left at every
// exit), and nothing of another user's: a judge that is not root has no
// linux runner to clean up after it.
func TestTempOwnerLockCleansUpThisUsersDeadJudges(t *testing.T) {
	root := t.TempDir()
	dead := tempPrefix + "1-1099511627776-0123456789abcdef"
	mine := []string{dead + ownerLockSuffix, dead + "-rootless-1"}
	others := tempPrefix + "2-1099511627776-fedcba9876543210-rootless-1"
	for _, name := range append(mine, others) {
		if err := os.Mkdir(filepath.Join(root, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	otherUID := os.Geteuid() + 1
	if err := os.Chown(filepath.Join(root, others), otherUID, otherUID); err != nil {
		t.Skipf("cannot play another user: %v", err)
	}
	made, err := mkdirOwnedTemp(root, "test-*")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(made), tempPrefix+ownerTag+"-test-") {
		t.Errorf("made %s, want it named after this judge", made)
	}
	for _, name := range mine {
		if _, err := os.Stat(filepath.Join(root, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of a dead judge of this user: still there (%v)", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, others)); err != nil {
		t.Errorf("another user's entry went: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, tempPrefix+ownerTag+ownerLockSuffix)); err != nil {
		t.Errorf("no owner lock of this judge: %v", err)
	}
	if !ownerAlive(root, tempPrefix, ownerTag+"-1") {
		t.Error("this judge's own entries read as dead")
	}
}

// A judge whose last linux runner closes leaves no owner lock behind in a
// folder that holds nothing else of it; a runner made after that takes
// its locks anew, so its entries still read as alive.
func TestLastLinuxRunnerCloseReleasesOwnerLocks(t *testing.T) {
	tempRoot := t.TempDir()
	lock := filepath.Join(tempRoot, tempPrefix+ownerTag+ownerLockSuffix)
	r := requireLinuxRunnerWith(t, &LinuxOptions{TempRoot: tempRoot})
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("no owner lock while the runner is open: %v", err)
	}
	ownerLocks.Lock()
	others := ownerLocks.runners - 1
	ownerLocks.Unlock()
	if others != 0 {
		t.Fatalf("%d other linux runners open in this test binary", others)
	}
	r.Close()
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("owner lock after the last runner closed: %v", err)
	}
	r2 := requireLinuxRunnerWith(t, &LinuxOptions{TempRoot: tempRoot})
	p, err := r2.Start(context.Background(), Spec{Args: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	base := filepath.Base(p.(*linuxProcess).dir.base)
	if !ownerAlive(tempRoot, tempPrefix, strings.TrimPrefix(base, tempPrefix)) {
		t.Errorf("a sandbox of a runner made after the release reads as dead")
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("no owner lock for the new runner: %v", err)
	}
}

// In a temp dir anyone may write: a FIFO in an owner lock's place does not
// hang the clean-up, and a lock another user made and holds does not keep
// a dead judge's entry alive.
func TestPlantedOwnerLocksDoNotCount(t *testing.T) {
	root := t.TempDir()
	fifoTag := "1-1099511627776-1111111111111111"
	heldTag := "1-1099511627776-2222222222222222"
	for _, tag := range []string{fifoTag, heldTag} {
		if err := os.Mkdir(filepath.Join(root, tempPrefix+tag+"-1"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, tempPrefix+fifoTag+ownerLockSuffix), 0o666); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(root, tempPrefix+heldTag+ownerLockSuffix)
	if err := os.Mkdir(planted, 0o755); err != nil {
		t.Fatal(err)
	}
	otherUID := os.Geteuid() + 1
	if err := os.Chown(planted, otherUID, otherUID); err != nil {
		t.Skipf("cannot play another user: %v", err)
	}
	hold, err := os.Open(planted)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	if err := syscall.Flock(int(hold.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if errs := removeStaleTemp(root, -1); len(errs) != 0 {
		t.Fatal(errs)
	}
	for _, tag := range []string{fifoTag, heldTag} {
		if _, err := os.Stat(filepath.Join(root, tempPrefix+tag+"-1")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the dead judge's entry %s-1 stays: %v", tag, err)
		}
	}
}
