//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/criyle/go-sandbox/pkg/forkexec"
	"golang.org/x/sys/unix"
)

// BenchmarkStartSteps breaks the linux runner's start of `true` into its
// steps, each measured alone, so the cost of each is visible:
//
//   - exec: a go-sandbox fork+exec+wait of `true` with no isolation at all,
//     the floor every other line is compared with;
//   - exec+newns+mounts: the same in a new mount namespace with the
//     runner's system binds and pivot_root (what buildMounts produces);
//   - exec+newnet: the same in a new network namespace (what every
//     sandbox without Network gets; see linux_netns.go);
//   - exec+ipc+uts: the same in new IPC and UTS namespaces;
//   - cgroup: making and removing one sandbox cgroup (one dir per hierarchy on v1);
//   - cgroup+enter: the same plus a throw-away thread moving into it and
//     out again, as a cold start does (back to back, the moves mostly share
//     one RCU grace period; see cgroupEntry);
//   - placeholder: starting, killing and reaping the PID-1 placeholder
//     (placeholder+syncfunc: the same with a go-sandbox SyncFunc);
//   - workdir: making and removing the per-sandbox temp dir (only a start
//     with Files makes one; the new root's mount point is the runner's).
//
// go test -run '^$' -bench BenchmarkStartSteps -benchtime 20x ./sandbox
func BenchmarkStartSteps(b *testing.B) {
	r := requireLinuxRunner(b)
	truePath := "/usr/bin/true"
	execOnce := func(b *testing.B, fr *forkexec.Runner) {
		pid, err := startProgram(fr)
		if err != nil {
			b.Fatal(err)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			b.Fatal(err)
		}
		if ws.ExitStatus() != 0 {
			b.Fatalf("true: %v", ws)
		}
	}
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			execOnce(b, &forkexec.Runner{Args: []string{truePath}, WorkDir: "/"})
		}
	})
	b.Run("exec+newns+mounts", func(b *testing.B) {
		base := b.TempDir()
		l := layout{base: base, root: r.root, workDir: base}
		mounts, err := buildMounts(l, &visibleRoots{readOnly: r.system}, 1<<20, r.uid, r.gid)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(mounts)), "mounts")
		for b.Loop() {
			execOnce(b, &forkexec.Runner{Args: []string{truePath}, WorkDir: "/",
				CloneFlags: unix.CLONE_NEWNS, Mounts: mounts, PivotRoot: l.root})
		}
	})
	b.Run("exec+newnet", func(b *testing.B) {
		for b.Loop() {
			execOnce(b, &forkexec.Runner{Args: []string{truePath}, WorkDir: "/", CloneFlags: unix.CLONE_NEWNET})
		}
	})
	b.Run("exec+ipc+uts", func(b *testing.B) {
		for b.Loop() {
			execOnce(b, &forkexec.Runner{Args: []string{truePath}, WorkDir: "/",
				CloneFlags: unix.CLONE_NEWIPC | unix.CLONE_NEWUTS, HostName: "sandbox", DomainName: "sandbox"})
		}
	})
	b.Run("cgroup", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			cg, err := r.cgroups.newCgroup(fmt.Sprintf("%s-bench%d", ownerTag, i), 64<<20, 10, 0, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := cg.destroy(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cgroup+enter", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			cg, err := r.cgroups.makeCgroup(fmt.Sprintf("%s-benchenter%d", ownerTag, i))
			if err != nil {
				b.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				runtime.LockOSThread() // never unlocked: the thread moved
				e, err := cg.enter(unix.Gettid())
				if err == nil {
					err = e.moveOut()
				}
				done <- err
			}()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
			if err := cg.destroy(); err != nil {
				b.Fatal(err)
			}
		}
	})
	placeholder := func(syncFunc func(int) error) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				pid, err := startProgram(&forkexec.Runner{Args: []string{r.placeholder}, WorkDir: "/",
					Files:    []uintptr{r.lifeline.Fd(), r.devNull.Fd(), r.devNull.Fd()},
					SyncFunc: syncFunc})
				if err != nil {
					b.Fatal(err)
				}
				syscall.Kill(pid, syscall.SIGKILL)
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, 0, nil)
			}
		}
	}
	b.Run("placeholder", placeholder(nil))
	// What the placeholder cost while it joined its cgroup in a SyncFunc:
	// go-sandbox then forks without CLONE_VM|CLONE_VFORK.
	b.Run("placeholder+syncfunc", placeholder(func(int) error { return nil }))
	b.Run("workdir", func(b *testing.B) {
		root := b.TempDir()
		i := 0
		for b.Loop() {
			i++
			base := filepath.Join(root, fmt.Sprint(i))
			if err := os.Mkdir(base, 0o700); err != nil {
				b.Fatal(err)
			}
			if err := os.RemoveAll(base); err != nil {
				b.Fatal(err)
			}
		}
	})
}
