package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func startPlain(t *testing.T, spec Spec) Process {
	t.Helper()
	if spec.Env == nil {
		spec.Env = []string{"PATH=" + os.Getenv("PATH")}
	}
	p, err := NewPlain().Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start(%v): %v", spec.Args, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPlainKind(t *testing.T) {
	if got := NewPlain().Kind(); got != "none" {
		t.Fatalf("Kind() = %q, want none", got)
	}
}

func TestPlainPipesAndExitCode(t *testing.T) {
	p := startPlain(t, Spec{Args: []string{"sh", "-c", "cat; echo oops >&2; exit 3"}})
	if _, err := io.WriteString(p.Stdin(), "hello\n"); err != nil {
		t.Fatal(err)
	}
	p.Stdin().Close()
	out, _ := io.ReadAll(p.Stdout())
	errOut, _ := io.ReadAll(p.Stderr())
	u, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "hello\n" || string(errOut) != "oops\n" {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	if u.ExitCode != 3 || u.Signal != 0 {
		t.Fatalf("usage %+v, want exit 3", u)
	}
	if u.MemoryPeak <= 0 || u.Wall <= 0 {
		t.Fatalf("usage %+v: want MemoryPeak and Wall measured", u)
	}
}

func TestPlainEnvironmentIsNotInherited(t *testing.T) {
	t.Setenv("TETHER_SECRET_FOR_TEST", "leak")
	p := startPlain(t, Spec{Args: []string{"/usr/bin/env"}, Env: []string{"ONLY=1"}})
	out, _ := io.ReadAll(p.Stdout())
	p.Wait()
	wd := p.(*plainProcess).workDir
	want := "ONLY=1\nTMPDIR=" + wd + "\nHOME=" + wd
	if strings.TrimSpace(string(out)) != want {
		t.Fatalf("env = %q, want only %q", out, want)
	}
}

func TestPlainFilesInPrivateWorkDirRemovedOnClose(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.txt")
	os.WriteFile(src, []byte("from source"), 0o600)
	p := startPlain(t, Spec{
		Args: []string{"sh", "-c", "pwd; cat a/data.txt; cat run.sh; test -x run.sh && echo exec"},
		Files: []File{
			{Name: "a/data.txt", Source: src},
			{Name: "run.sh", Data: []byte("inline\n"), Mode: 0o755},
		},
	})
	out, _ := io.ReadAll(p.Stdout())
	p.Wait()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[1] != "from sourceinline" || lines[2] != "exec" {
		t.Fatalf("output %q", out)
	}
	dir := lines[0]
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("work dir %s missing while process open: %v", dir, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("work dir %s still there after Close: %v", dir, err)
	}
}

func TestPlainDirIsUsed(t *testing.T) {
	dir := t.TempDir()
	p := startPlain(t, Spec{Args: []string{"pwd"}, Dir: dir})
	out, _ := io.ReadAll(p.Stdout())
	p.Wait()
	if strings.TrimSpace(string(out)) != dir {
		t.Fatalf("pwd = %q, want %q", out, dir)
	}
}

func TestPlainRejectsEscapingFileName(t *testing.T) {
	for _, name := range []string{"../x", "/etc/x", "", "a/../../x"} {
		_, err := NewPlain().Start(context.Background(), Spec{Args: []string{"true"}, Files: []File{{Name: name}}})
		if err == nil {
			t.Fatalf("file name %q accepted", name)
		}
	}
}

func TestPlainMissingProgram(t *testing.T) {
	_, err := NewPlain().Start(context.Background(), Spec{Args: []string{"no-such-program-tether"}})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("err = %v, want exec.ErrNotFound", err)
	}
	_, err = NewPlain().Start(context.Background(), Spec{})
	if err == nil {
		t.Fatal("empty Args accepted")
	}
}

func TestPlainCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewPlain().Start(ctx, Spec{Args: []string{"true"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestPlainKillKillsTheWholeGroup(t *testing.T) {
	p := startPlain(t, Spec{Args: []string{"sh", "-c", "sleep 60 & echo $!; wait"}})
	line := make([]byte, 32)
	n, _ := p.Stdout().Read(line)
	child, err := strconv.Atoi(strings.TrimSpace(string(line[:n])))
	if err != nil {
		t.Fatalf("grandchild pid %q: %v", line[:n], err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	u, _ := p.Wait()
	if u.Signal != int(syscall.SIGKILL) || u.ExitCode != -1 {
		t.Fatalf("usage %+v, want SIGKILL", u)
	}
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill after exit: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil {
		// The grandchild is reparented to init (or a subreaper), which reaps it.
		if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat"); strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive after Kill", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPlainCloseUnblocksReaders(t *testing.T) {
	p := startPlain(t, Spec{Args: []string{"sleep", "60"}})
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(p.Stdout())
		done <- err
	}()
	p.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("reader still blocked after Close")
	}
}

func TestPlainFileSizeLimit(t *testing.T) {
	p := startPlain(t, Spec{
		Args:   []string{"sh", "-c", "sleep 0.2; exec head -c 100000 /dev/zero > big"},
		Limits: Limits{FileSize: 4096},
	})
	io.ReadAll(p.Stdout())
	u, _ := p.Wait()
	if u.Signal != int(syscall.SIGXFSZ) {
		t.Fatalf("usage %+v: a 100 kB write under a 4 kB limit succeeded", u)
	}
}

func TestPlainOpenFilesLimit(t *testing.T) {
	p := startPlain(t, Spec{Args: []string{"sh", "-c", "sleep 0.2; ulimit -n"}, Limits: Limits{OpenFiles: 17}})
	out, _ := io.ReadAll(p.Stdout())
	p.Wait()
	if strings.TrimSpace(string(out)) != "17" {
		t.Fatalf("ulimit -n = %q, want 17", out)
	}
}

func TestPlainCPULimit(t *testing.T) {
	if testing.Short() {
		t.Skip("burns one second of CPU")
	}
	p := startPlain(t, Spec{Args: []string{"sh", "-c", "while :; do :; done"}, Limits: Limits{CPUTime: time.Second}})
	u, _ := p.Wait()
	if !u.CPUExceeded || u.CPU < 500*time.Millisecond {
		t.Fatalf("usage %+v, want CPUExceeded after about 1s CPU", u)
	}
}

// TMPDIR names the private work dir (made for it even when Dir is set) and
// is removed with it; a TMPDIR the Spec sets is kept, and then no work dir
// is made.
func TestPlainTempDir(t *testing.T) {
	code := `
import os, tempfile
d = tempfile.mkdtemp()
with open(os.path.join(d, "f"), "w") as f:
    f.write("x")
print(tempfile.gettempdir())
`
	path := "PATH=" + os.Getenv("PATH")
	p := startPlain(t, Spec{Args: []string{"python3", "-c", code}, Env: []string{path}, Dir: t.TempDir()})
	out, _ := io.ReadAll(p.Stdout())
	p.Wait()
	work := p.(*plainProcess).workDir
	if work == "" || string(out) != work+"\n" {
		t.Fatalf("tempdir %q, want the private work dir %q", out, work)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(work); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("work dir %s still there after Close: %v", work, err)
	}
	own := t.TempDir()
	p = startPlain(t, Spec{Args: []string{"python3", "-c", code}, Env: []string{path, "TMPDIR=" + own, "HOME=" + own}, Dir: t.TempDir()})
	out, _ = io.ReadAll(p.Stdout())
	p.Wait()
	if string(out) != own+"\n" || p.(*plainProcess).workDir != "" {
		t.Fatalf("caller's TMPDIR and HOME: tempdir %q, want %q; work dir %q, want none", out, own, p.(*plainProcess).workDir)
	}
}
