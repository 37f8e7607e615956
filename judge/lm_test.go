package judge_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
)

func TestProblemLM(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, lm   string
		wantInline string
		wantPath   string
		wantErr    bool
	}{
		{name: "absent", lm: ""},
		{name: "null", lm: `null`},
		{name: "inline", lm: `{"backends":{"e":{"type":"echo"}}}`, wantInline: `{"backends":{"e":{"type":"echo"}}}`},
		{name: "relative path", lm: `"conf/lm.json"`, wantPath: filepath.Join("conf", "lm.json")},
		{name: "relative path, cleaned", lm: `"./conf//lm.json"`, wantPath: filepath.Join("conf", "lm.json")},
		// The judge reads the file itself, as root: only the problem's own
		// (issue 27, item 5: "/etc/shadow" and "../../x" were read).
		{name: "absolute path", lm: `"/etc/tether/lm.json"`, wantErr: true},
		{name: "path out of the folder", lm: `"../lm.json"`, wantErr: true},
		{name: "path out through a folder", lm: `"conf/../../lm.json"`, wantErr: true},
		{name: "empty string", lm: `""`, wantErr: true},
		{name: "number", lm: `3`, wantErr: true},
		{name: "array", lm: `[{}]`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := `{"runtime_config":{"evaluator":{"command":"sh e.sh"}}}`
			if tc.lm != "" {
				raw = `{"runtime_config":{"evaluator":{"command":"sh e.sh"},"lm":` + tc.lm + `}}`
			}
			p := &judge.Problem{Dir: dir, Raw: json.RawMessage(raw)}
			got, err := p.LM()
			if tc.wantErr {
				var pe *judge.ProblemError
				if !errors.Is(err, judge.ErrBadProblemJSON) || !errors.As(err, &pe) || pe.Field != "runtime_config.lm" {
					t.Fatalf("err = %v, want a ProblemError on runtime_config.lm wrapping ErrBadProblemJSON", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Inline) != tc.wantInline || got.Path != tc.wantPath {
				t.Errorf("got inline %q path %q, want %q %q", got.Inline, got.Path, tc.wantInline, tc.wantPath)
			}
			if got.Declared() != (tc.wantInline != "" || tc.wantPath != "") {
				t.Errorf("Declared() = %v", got.Declared())
			}
		})
	}
}

// loadRun loads the problem in dir and the submission in file; either
// failing fails t.
func loadRun(t *testing.T, dir, file string) (*judge.Problem, *judge.Submission) {
	t.Helper()
	p, err := judge.LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := judge.LoadSubmission(file)
	if err != nil {
		t.Fatal(err)
	}
	return p, sub
}

// shellLMProblem: the evaluator prints its TETHER_LM_ADDR, calls the
// solution once and gives a result; the solution host is a shell script.
func shellLMProblem(t *testing.T, lm string) (*judge.Problem, *judge.Submission) {
	t.Helper()
	dir := t.TempDir()
	rc := `"evaluator":{"command":"sh evaluate.sh"},"solution":{"command":["sh","` + filepath.Join(dir, "host.sh") + `"]}`
	if lm != "" {
		rc += `,"lm":` + lm
	}
	files := map[string]string{
		"problem.json": `{"runtime_config":{` + rc + `}}`,
		"evaluate.sh": `echo "addr=[$TETHER_LM_ADDR]"
echo '{"type":"call","id":"a","fn":"f","args":[]}'
read line
echo '---RESULT---'
echo '{"status":"Accepted","score":10000}'
`,
		"host.sh": `echo '{"type":"ready"}'
read line
echo '{"type":"result","id":"a","value":1}'
`,
		"sol.py": "x = 1\n",
	}
	testfiles.Write(t, dir, files)
	return loadRun(t, dir, filepath.Join(dir, "sol.py"))
}

func TestLMDeclaredWithoutStarter(t *testing.T) {
	p, sub := shellLMProblem(t, `{"backends":{"echo":{"type":"echo"}}}`)
	res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: sandbox.NewPlain()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != judge.SystemError || !strings.Contains(string(res.Details), judge.ErrNoLMHandler.Error()) {
		t.Errorf("got %v %s, want SystemError naming ErrNoLMHandler", res.Status, res.Details)
	}
	if res.LMUsage != nil {
		t.Errorf("lm_usage = %s without a handler", res.LMUsage)
	}
}

// fakeLM records how the judge uses an LMStarter and its handler.
type fakeLM struct {
	mu       sync.Mutex
	socket   string
	closes   int
	usages   int
	startErr error
	none     bool // the starter returns (nil, nil)
}

func (f *fakeLM) start(_ context.Context, _ *judge.Problem, socket string, _ func(judge.LMRequest)) (judge.LMHandler, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.socket = socket
	if f.startErr != nil {
		return nil, f.startErr
	}
	if f.none {
		return nil, nil
	}
	// A real handler listens there; the judge makes the file reachable.
	if err := os.WriteFile(socket, nil, 0o600); err != nil {
		return nil, err
	}
	return fakeHandler{f}, nil
}

type fakeHandler struct{ f *fakeLM }

func (h fakeHandler) UsageJSON() (json.RawMessage, error) {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	h.f.usages++
	return json.RawMessage(`{"model_usage_summaries":{"m":{"total_calls":7,"total_input_tokens":1,"total_output_tokens":2}}}`), nil
}

func (h fakeHandler) Close() error {
	h.f.mu.Lock()
	defer h.f.mu.Unlock()
	h.f.closes++
	return nil
}

// failingRunner fails every start, so the evaluator never runs.
type failingRunner struct{}

var errNoStart = errors.New("runner refuses to start anything")

func (failingRunner) Kind() string { return "none" }
func (failingRunner) Close() error { return nil }
func (failingRunner) Start(context.Context, sandbox.Spec) (sandbox.Process, error) {
	return nil, errNoStart
}

func TestLMHandlerLifecycle(t *testing.T) {
	t.Run("normal run", func(t *testing.T) {
		p, sub := shellLMProblem(t, "")
		f := &fakeLM{}
		res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: sandbox.NewPlain(), LM: f.start})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != judge.Accepted {
			t.Fatalf("status %v %s", res.Status, res.Details)
		}
		if !strings.Contains(res.Output, "addr=[unix:"+f.socket+"]") {
			t.Errorf("evaluator output %q does not show TETHER_LM_ADDR=unix:%s", res.Output, f.socket)
		}
		if f.closes != 1 || f.usages != 1 {
			t.Errorf("handler closed %d times, usage read %d times; want 1, 1", f.closes, f.usages)
		}
		if !json.Valid(res.LMUsage) || !strings.Contains(string(res.LMUsage), `"total_calls":7`) {
			t.Errorf("lm_usage = %s, want the handler's usage", res.LMUsage)
		}
		if _, err := os.Stat(filepath.Dir(f.socket)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket dir left behind: %v", err)
		}
	})
	t.Run("evaluator does not start", func(t *testing.T) {
		p, sub := shellLMProblem(t, "")
		f := &fakeLM{}
		res, err := judge.Run(context.Background(), p, sub, &judge.Options{LM: f.start, Runner: failingRunner{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != judge.SystemError || !strings.Contains(string(res.Details), errNoStart.Error()) {
			t.Errorf("got %v %s, want SystemError naming the start failure", res.Status, res.Details)
		}
		if f.closes != 1 {
			t.Errorf("handler closed %d times, want 1", f.closes)
		}
		if _, err := os.Stat(filepath.Dir(f.socket)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket dir left behind: %v", err)
		}
	})
	t.Run("starter fails", func(t *testing.T) {
		p, sub := shellLMProblem(t, "")
		errBackend := errors.New("backend gpt: no key")
		f := &fakeLM{startErr: errBackend}
		res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: sandbox.NewPlain(), LM: f.start})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != judge.SystemError || !strings.Contains(string(res.Details), errBackend.Error()) {
			t.Errorf("got %v %s, want SystemError naming the starter's error", res.Status, res.Details)
		}
		if _, err := os.Stat(filepath.Dir(f.socket)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket dir left behind: %v", err)
		}
	})
	t.Run("no handler for this problem", func(t *testing.T) {
		p, sub := shellLMProblem(t, "")
		f := &fakeLM{none: true}
		res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: sandbox.NewPlain(), LM: f.start})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != judge.Accepted || !strings.Contains(res.Output, "addr=[]") || res.LMUsage != nil {
			t.Errorf("got %v, output %q, lm_usage %s; want Accepted, no address, no usage", res.Status, res.Output, res.LMUsage)
		}
		if _, err := os.Stat(filepath.Dir(f.socket)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket dir left behind: %v", err)
		}
	})
}
