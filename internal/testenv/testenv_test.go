package testenv

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestChild is run by the tests below as a child process of this test
// binary, so that Require and Python3 act on a real *testing.T: whether it
// passed, was skipped or failed is in the child's -test.v output.
func TestChild(t *testing.T) {
	switch os.Getenv("TESTENV_CHILD") {
	case "":
		t.Skip("run as a child by the tests of Require and Python3")
	case "require":
		var err error
		if msg := os.Getenv("TESTENV_CHILD_ERR"); msg != "" {
			err = errors.New(msg)
		}
		Require(t, "TETHER_REQUIRE_X", err)
	case "python3":
		Python3(t)
	}
	t.Log("went on")
}

// child runs TestChild with env added and returns its output.
func child(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.CombinedOutput() // a failing child exits 1: its output says so
	return string(out)
}

// Something missing skips the test, unless CI requires it: then it fails,
// naming the variable that asked for it. Nothing missing: the test goes on.
func TestRequireSkipsUnlessCIRequires(t *testing.T) {
	const missing = "redis-server is not installed"
	skipped := missing + " (set TETHER_REQUIRE_X=1 to make this a failure)"
	for _, c := range []struct {
		env, err     string
		want, saying string
	}{
		{"", "", "--- PASS", "went on"},
		{"1", "", "--- PASS", "went on"},
		{"", missing, "--- SKIP", skipped},
		{"0", missing, "--- SKIP", skipped},
		{"1", missing, "--- FAIL", "TETHER_REQUIRE_X=1 but " + missing},
	} {
		out := child(t, "TESTENV_CHILD=require", "TESTENV_CHILD_ERR="+c.err, "TETHER_REQUIRE_X="+c.env)
		if !strings.Contains(out, c.want+": TestChild") || !strings.Contains(out, c.saying) {
			t.Errorf("TETHER_REQUIRE_X=%q, err %q: want %s saying %q; the child wrote:\n%s", c.env, c.err, c.want, c.saying, out)
		}
	}
}

// Without python3 on PATH a test is skipped, or fails under
// TETHER_REQUIRE_INTEROP=1.
func TestPython3WithoutOneOnPath(t *testing.T) {
	for env, want := range map[string]string{"": "--- SKIP", "1": "--- FAIL"} {
		out := child(t, "TESTENV_CHILD=python3", "PATH="+t.TempDir(), "TETHER_REQUIRE_INTEROP="+env)
		if !strings.Contains(out, want+": TestChild") || !strings.Contains(out, "no python3 on PATH") {
			t.Errorf("TETHER_REQUIRE_INTEROP=%q and no python3: want %s; the child wrote:\n%s", env, want, out)
		}
	}
}

func TestTimeScale(t *testing.T) {
	for env, want := range map[string]float64{"": 1, "5": 5, "2.5": 2.5, "0.5": 1, "x": 1} {
		t.Setenv("TETHER_TIME_SCALE", env)
		if got := TimeScale(); got != want {
			t.Errorf("TETHER_TIME_SCALE=%q: TimeScale() = %v, want %v", env, got, want)
		}
	}
}
