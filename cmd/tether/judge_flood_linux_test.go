//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/internal/testfiles"
)

// floodChannel finds the solution host's private copy of the protocol
// pipe (the SDK moves it off fd 1): a hostile solution writes frames there
// itself.
const floodChannel = `import fcntl, os, stat

def channel():
    for fd in range(3, 64):
        try:
            st = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISFIFO(st.st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
            return fd
    raise RuntimeError("no protocol pipe")

`

// floodProblem is A + B with a 20 s call deadline (the floods end long
// before), and three solutions: a quiet right one, and two wrong ones that
// flood log frames before answering.
func floodProblem(t *testing.T) (dir string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "flood")
	os.Mkdir(dir, 0o755)
	evaluate, err := os.ReadFile("../../examples/aplusb/evaluate.py")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"problem.json": `{"runtime_config":{"evaluator":{"time_limit_ms":60000},"solution":{"call_timeout_ms":20000}}}`,
		"evaluate.py":  string(evaluate),
		"quiet.py":     "def add(a, b):\n    return a + b\n",
		// 64 frames with a 1 MB stream name each.
		"long_stream.py": floodChannel + `def add(a, b):
    frame = ('{"type":"log","stream":"' + 'x' * 1000000 + '","data":""}\n').encode()
    fd = channel()
    for _ in range(64):
        os.write(fd, frame)
    return a + b + 1
`,
		// 300,000 frames with empty data.
		"empty_frames.py": floodChannel + `def add(a, b):
    frames = b'{"type":"log","stream":"stdout","data":""}\n' * 1000
    fd = channel()
    for _ in range(300):
        os.write(fd, frames)
    return a + b + 1
`,
	}
	testfiles.Write(t, dir, files)
	return dir
}

// runMeasured runs bin with args and stdin, and returns its stdout and its
// peak RSS in KiB (the judge's, or a side's if that was larger: wait4
// folds in the children it reaped).
func runMeasured(t *testing.T, stdin string, bin string, args ...string) ([]byte, int64) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.Bytes())
	}
	return stdout.Bytes(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

// Issue 17, defect 1: log frames bypassed the log budget. A solution
// flooding frames with 1 MB stream names, or hundreds of thousands of
// empty ones, drove the judge to gigabytes and its result to hundreds of
// megabytes. Now the whole frame counts, per call and per run: the judge
// stays within 64 MiB of its idle peak, the result within 2 MiB, what was
// dropped is counted, and the verdict is the solution's own (WrongAnswer).
// The same holds for judge.run under `tether serve`.
func TestJudgeBoundedUnderLogFlood(t *testing.T) {
	testenv.Python3(t)
	bin := sbxTetherBinary(t)
	dir := floodProblem(t)
	judgeArgs := func(sol string) []string {
		return []string{"judge", dir, filepath.Join(dir, sol), "--json", "--sandbox", "none"}
	}
	_, idle := runMeasured(t, "", bin, judgeArgs("quiet.py")...)
	check := func(t *testing.T, out []byte, rss int64) {
		t.Helper()
		var res struct {
			Status string
			Logs   struct {
				Kept    []json.RawMessage
				Dropped int
			}
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("result: %v: %.300s", err, out)
		}
		if res.Status != "WrongAnswer" || res.Logs.Dropped == 0 {
			t.Errorf("status %s, %d log frames kept, %d dropped; want WrongAnswer with drops", res.Status, len(res.Logs.Kept), res.Logs.Dropped)
		}
		if len(out) > 2<<20 {
			t.Errorf("result is %d bytes, want at most 2 MiB", len(out))
		}
		t.Logf("result %d bytes, %d log frames kept, %d dropped; peak RSS %d KiB (idle %d KiB)", len(out), len(res.Logs.Kept), res.Logs.Dropped, rss, idle)
		if rss-idle > 64<<10 {
			t.Errorf("judge peak RSS %d KiB, %d KiB over its idle peak (%d KiB); want at most 64 MiB over", rss, rss-idle, idle)
		}
	}
	for _, sol := range []string{"long_stream.py", "empty_frames.py"} {
		t.Run(sol, func(t *testing.T) {
			out, rss := runMeasured(t, "", bin, judgeArgs(sol)...)
			check(t, out, rss)
		})
		t.Run("serve/"+sol, func(t *testing.T) {
			req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "judge.run",
				"params": map[string]any{"problem": dir, "solution": map[string]any{"path": filepath.Join(dir, sol)}}})
			out, rss := runMeasured(t, string(req)+"\n", bin, "serve", "--stdio", "--sandbox", "none")
			// Progress notifications come first; the answer is the last line.
			lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
			var resp struct{ Result json.RawMessage }
			if err := json.Unmarshal(lines[len(lines)-1], &resp); err != nil || resp.Result == nil {
				t.Fatalf("judge.run answer (%d bytes): %v: %.300s", len(out), err, out)
			}
			if len(lines[len(lines)-1]) > 2<<20 {
				t.Errorf("judge.run answer is %d bytes, want at most 2 MiB", len(lines[len(lines)-1]))
			}
			check(t, resp.Result, rss)
		})
	}
}
