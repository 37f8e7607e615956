package judge

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

func TestOutputCollectionTailUTF8AndFramesExcluded(t *testing.T) {
	r := judgeCase{eval: "output-flood", sol: "basic"}.run(t)
	wantStatus(t, r, Accepted)
	out, errPart, ok := strings.Cut(r.Output, StderrSeparator)
	if !ok {
		t.Fatalf("no stderr section in output")
	}
	if len(out) > MaxStreamOutput || len(out) < MaxStreamOutput-4 {
		t.Fatalf("stdout part is %d bytes, want the 1 MiB tail", len(out))
	}
	if !utf8.ValidString(out) || !strings.HasSuffix(out, "LAST LINE\n") || strings.Contains(out, "cap_reg") {
		t.Fatalf("stdout part: valid UTF-8 %v, tail %q, frames inside %v",
			utf8.ValidString(out), out[len(out)-20:], strings.Contains(out, "cap_reg"))
	}
	if len(errPart) != MaxStreamOutput || !strings.HasSuffix(errPart, "END") {
		t.Fatalf("stderr part is %d bytes, want 1 MiB ending in END", len(errPart))
	}
}

func TestSolutionLogsKeptAndCapped(t *testing.T) {
	r := judgeCase{eval: "logs", sol: "chatty"}.run(t)
	wantStatus(t, r, Accepted)
	kept := 0
	for _, l := range r.Logs.Kept {
		if l.Stream != "stdout" || len(l.Data) != 1024 {
			t.Fatalf("log entry %q/%d bytes", l.Stream, len(l.Data))
		}
		kept += len(l.Data)
	}
	// 200 frames of 1 KiB in one call: the frames that fit whole in 64 KiB
	// per call are kept and forwarded.
	fits := (64 << 10) / (len(`{"type":"log","stream":"stdout","data":""}`) + 1024)
	if kept != fits*1024 || r.Logs.Dropped != 200-fits {
		t.Fatalf("kept %d bytes, dropped %d frames", kept, r.Logs.Dropped)
	}
	if fw := details(t, r)["forwarded"]; fw != float64(kept) {
		t.Fatalf("evaluator got %v bytes of logs, judge kept %d", fw, kept)
	}
}

func TestSideExitsMidCall(t *testing.T) {
	r := judgeCase{eval: "die-mid-call", sol: "dier"}.run(t)
	wantStatus(t, r, Accepted)
	d := details(t, r)
	if d["system"] != true || !strings.Contains(d["message"].(string), "exit status 3") || d["after"] != 42.0 {
		t.Fatalf("details %s", r.Details)
	}
}

func TestSolutionNeverReadsStdin(t *testing.T) {
	r := judgeCase{eval: "call-deaf", sol: "deaf"}.run(t)
	wantStatus(t, r, Accepted)
	codes := details(t, r)["codes"].(map[string]any)
	if codes["SystemError"] != 100.0 {
		t.Fatalf("codes %v: every call to a solution that never reads must fail with SystemError", codes)
	}
}

func TestEvaluatorNeverReadsStdin(t *testing.T) {
	r := judgeCase{eval: "deaf", sol: "basic"}.run(t)
	wantStatus(t, r, SystemError)
}

func TestBadInputDoesNotStopTheRun(t *testing.T) {
	c := judgeCase{eval: "garbage-then-call", sol: "flooder"}
	c.opts.Env = []string{"TETHER_TEST_FLOOD=16777216"}
	r := c.run(t)
	wantStatus(t, r, Accepted)
	if d := details(t, r); d["flood"] != "flooded" || d["add"] != 2.0 {
		t.Fatalf("details %s", r.Details)
	}
}

// TestFloodMemoryBounded runs the judge in a child process (this test
// binary, role "judge-flood") while the solution writes a 100 MiB line and
// 1 GiB of plain text, and reads the child's peak RSS.
func TestFloodMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("floods 1 GiB through a pipe")
	}
	size := int64(1 << 30)
	if raceEnabled {
		size = 64 << 20
	}
	cmd := exec.Command(selfPath(t), "-test.run=^TestJudgeFloodChild$", "-test.v")
	cmd.Env = append(os.Environ(), "TETHER_JUDGE_FLOOD_CHILD=1", fmt.Sprintf("TETHER_TEST_FLOOD=%d", size))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var selfKB int64
	fmt.Sscan(string(out[strings.Index(string(out), "RSS ")+len("RSS "):]), &selfKB)
	var res Result
	line := out[strings.Index(string(out), "RESULT ")+len("RESULT "):]
	line = line[:strings.IndexByte(string(line), '\n')]
	if err := json.Unmarshal(line, &res); err != nil {
		t.Fatalf("child result %q: %v", line, err)
	}
	wantStatus(t, &res, Accepted)
	t.Logf("judge peak RSS with a %d MiB flood: %d KiB (%.1f MiB)", size>>20, selfKB, float64(selfKB)/1024)
	limitKB := int64(100 << 10)
	if raceEnabled {
		limitKB *= 5 // the race detector's shadow memory
	}
	if selfKB <= 0 || selfKB > limitKB {
		t.Fatalf("judge peak RSS %d KiB, want 0 < RSS <= %d KiB", selfKB, limitKB)
	}
}

// TestJudgeFloodChild is the judge side of TestFloodMemoryBounded.
func TestJudgeFloodChild(t *testing.T) {
	if os.Getenv("TETHER_JUDGE_FLOOD_CHILD") == "" {
		t.Skip("runs only as TestFloodMemoryBounded's child")
	}
	c := judgeCase{eval: "garbage-then-call", sol: "flooder", evalRC: map[string]any{"time_limit_ms": 300000}}
	c.opts.Env = []string{"TETHER_TEST_FLOOD=" + os.Getenv("TETHER_TEST_FLOOD")}
	r := c.run(t)
	b, _ := json.Marshal(r)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // this process only: the judge
	fmt.Printf("RESULT %s\nRSS %d\n", b, ru.Maxrss)
}
