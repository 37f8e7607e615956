package judge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/sandbox"
)

func TestCancelledContextStopsTheRun(t *testing.T) {
	c := judgeCase{eval: "slow", sol: "basic"}
	p := c.problem(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, p, &Submission{Code: []byte("x")}, &Options{Runner: sandbox.NewPlain(), PythonPath: t.TempDir(),
		Env: []string{"TETHER_TEST_EVAL=slow", "TETHER_TEST_SOL=basic"}, StopGrace: 100 * time.Millisecond})
	if !errors.Is(err, ErrCancelled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrCancelled wrapping DeadlineExceeded", err)
	}
	wantStatus(t, res, SystemError)
	if !strings.HasPrefix(details(t, res)["message"].(string), "judge cancelled") {
		t.Fatalf("details %s", res.Details)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("cancelled run took %v", d)
	}
}

func TestPanicInAHookIsSystemError(t *testing.T) {
	c := judgeCase{eval: "add", sol: "basic"}
	c.opts.Observer = ObserverFunc(func(ev *Event) {
		if ev.Kind == EventCallOpened {
			panic("trace hook broke")
		}
	})
	r := c.run(t)
	wantStatus(t, r, SystemError)
	if msg := details(t, r)["message"].(string); !strings.Contains(msg, "judge internal error: trace hook broke") {
		t.Fatalf("details %s", r.Details)
	}
}

func TestEvaluatorThatCannotStart(t *testing.T) {
	c := judgeCase{eval: "add", sol: "basic"}
	p := c.problem(t)
	p.Runtime.Evaluator.Command = []string{"/nonexistent/evaluator"}
	res, err := Run(context.Background(), p, &Submission{Code: []byte("x")}, &Options{Runner: sandbox.NewPlain(), PythonPath: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, res, SystemError)
	// The problem's setup is at fault, not the judge.
	if msg := details(t, res)["message"].(string); !strings.HasPrefix(msg, `cannot start the evaluator "/nonexistent/evaluator": `) {
		t.Fatalf("details %s", res.Details)
	}

	p = c.problem(t)
	p.Runtime.Solution.Command = []string{"/nonexistent/host"}
	res, err = Run(context.Background(), p, &Submission{Code: []byte("x")}, &Options{Runner: sandbox.NewPlain(), PythonPath: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, res, SystemError)
	if msg := details(t, res)["message"].(string); !strings.HasPrefix(msg, `cannot start the solution "/nonexistent/host": `) {
		t.Fatalf("details %s", res.Details)
	}
}
