//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// starveAttack is a solution's weapon: ~60 busy children, each in a
// session (and so a scheduler autogroup) of its own, to starve the
// evaluator, while the solution floods log frames with empty data and a
// member of almost 1 MiB on the protocol pipe for two seconds.
const starveAttack = floodChannel + `import time

def attack():
    for _ in range(60):
        try:
            pid = os.fork()
        except OSError:
            break  # the pids limit
        if pid == 0:
            os.setsid()
            while True:
                pass
    frame = ('{"type":"log","stream":"stdout","data":"","pad":"' + 'p' * ((1 << 20) - 100) + '"}\n').encode()
    fd = channel()
    end = time.time() + 2
    while time.time() < end:
        os.write(fd, frame)

`

// Issue 17, defect 2: a wrong solution turned its verdict into
// SystemError ("evaluator ended without a result") by starving the
// evaluator and flooding it with unbudgeted log frames until the judge's
// write to it stalled for 3 s. Through the real binary and the linux
// sandbox, on examples/capability and on A + B, the verdict stays the
// solution's own: WrongAnswer. The runs had 5 s call timeouts;
// here they are 20 s, so that the attack (which starves the solution's own
// process too) ends in time on a busy machine: the bug needed only a 3 s
// stall within the call.
func TestJudgeWrongSolutionCannotCauseSystemError(t *testing.T) {
	testenv.Python3(t)
	sandboxtest.Linux(t) // the test runs the linux sandbox through the binary
	bin := sbxTetherBinary(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	files := map[string]string{}
	problemJSON := `{"runtime_config":{"evaluator":{"time_limit_ms":120000},"solution":{"call_timeout_ms":20000}}}`
	for _, name := range []string{"aplusb", "capability"} {
		os.Mkdir(filepath.Join(dir, name), 0o755)
		evaluate, err := os.ReadFile(filepath.Join("../../examples", name, "evaluate.py"))
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Join(dir, name, "evaluate.py")] = string(evaluate)
		files[filepath.Join(dir, name, "problem.json")] = problemJSON
	}
	for name, body := range map[string]string{
		filepath.Join(dir, "add.py"): starveAttack + "def add(a, b):\n    attack()\n    return a + b + 1\n",
		filepath.Join(dir, "translate.py"): starveAttack + "def translate(sentence):\n    attack()\n    return 'wrong'\n\n" +
			"def ask_oracle():\n    return 'CallTimeout'\n",
	} {
		files[name] = body
	}
	for name, body := range files {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ problem, solution string }{
		{filepath.Join(dir, "capability"), filepath.Join(dir, "translate.py")},
		{filepath.Join(dir, "aplusb"), filepath.Join(dir, "add.py")},
	} {
		t.Run(filepath.Base(tc.problem), func(t *testing.T) {
			out, _ := runMeasured(t, "", bin, "judge", tc.problem, tc.solution, "--json", "--sandbox", "linux")
			var res struct {
				Status  string
				Details json.RawMessage
				Logs    struct{ Dropped int }
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("result: %v: %.300s", err, out)
			}
			if res.Status != "WrongAnswer" || !strings.Contains(string(out), `"sandbox": "linux"`) {
				t.Fatalf("status %s, details %s; want WrongAnswer under the linux sandbox", res.Status, res.Details)
			}
			if res.Logs.Dropped == 0 {
				t.Errorf("no log frame dropped: the flood was not over budget?")
			}
		})
	}
}
