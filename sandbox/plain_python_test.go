package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The plain runner runs the interpreter behind the judge's python3 (a
// pyenv shim here) directly, the same program the linux runner runs.
func TestPlainPythonIsTheResolvedInterpreter(t *testing.T) {
	py := sharedHostPython()
	if py == nil {
		t.Skip("no python3 on the host PATH")
	}
	for _, name := range []string{"python3", "python"} {
		if _, ok := py.onPath[name]; !ok {
			continue
		}
		p := startPlain(t, Spec{Args: []string{name, "-c", "import sys; print(sys.executable)"}})
		p.Stdin().Close()
		out, _ := io.ReadAll(p.Stdout())
		if u, err := p.Wait(); err != nil || u.ExitCode != 0 {
			t.Fatalf("%s: usage %+v, err %v", name, u, err)
		}
		if got := strings.TrimSpace(string(out)); got != py.executable {
			t.Errorf("%s: sys.executable = %q, want the resolved interpreter %q", name, got, py.executable)
		}
	}
}

// A Spec whose PATH finds another python3 than the judge's keeps it.
func TestPlainPythonOtherPATHIsKept(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "python3")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho fake python\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startPlain(t, Spec{Args: []string{"python3"}, Env: []string{"PATH=" + dir + ":" + os.Getenv("PATH")}})
	p.Stdin().Close()
	out, _ := io.ReadAll(p.Stdout())
	p.Wait()
	if string(out) != "fake python\n" {
		t.Fatalf("stdout %q, want the Spec's own python3", out)
	}
}

func TestHostPythonInterpreter(t *testing.T) {
	py := &hostPython{executable: "/opt/py/bin/python3.12",
		onPath: map[string]string{"python3": "/shims/python3", "python": "/shims/python"}}
	for _, c := range []struct{ name, path, want string }{
		{"python3", "/shims/python3", "/opt/py/bin/python3.12"},
		{"python", "/shims/python", "/opt/py/bin/python3.12"},
		{"python3", "/other/python3", "/other/python3"},
		{"python", "/shims/python3", "/shims/python3"},
		{"perl", "/shims/python3", "/shims/python3"},
	} {
		if got := py.interpreter(c.name, c.path); got != c.want {
			t.Errorf("interpreter(%q, %q) = %q, want %q", c.name, c.path, got, c.want)
		}
	}
	if got := (*hostPython)(nil).interpreter("python3", "/usr/bin/python3"); got != "/usr/bin/python3" {
		t.Errorf("nil hostPython: %q", got)
	}
}

// A plain run of anything but Python never asks the host's Python where it
// lives: that probe is a Python start (100 ms and more behind a pyenv
// shim) that a judge of two Go programs would pay for nothing. The check
// runs in a fresh test process, where nothing has asked yet: its PATH
// finds first a python3 that leaves a mark.
func TestPlainRunOfOtherProgramsAsksNoPython(t *testing.T) {
	if os.Getenv("TETHER_TEST_PYTHON_MARK") != "" {
		p := startPlain(t, Spec{Args: []string{"sh", "-c", "exit 0"}, Env: []string{"PATH=" + os.Getenv("PATH")}})
		p.Stdin().Close()
		if u, err := p.Wait(); err != nil || u.ExitCode != 0 {
			t.Fatalf("sh: usage %+v, err %v", u, err)
		}
		return
	}
	dir := t.TempDir()
	mark := filepath.Join(dir, "asked")
	script := "#!/bin/sh\necho asked > " + mark + "\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlainRunOfOtherProgramsAsksNoPython$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TETHER_TEST_PYTHON_MARK=1", "PATH="+dir+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the test process: %v\n%s", err, out)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("starting sh ran the host's python3 (the interpreter probe)")
	}
}
