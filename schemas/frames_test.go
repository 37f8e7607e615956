package schemas_test

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/schemas"
)

// The frames test runs a judge: its goroutines must all be gone after.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// lineRecorder keeps a copy of every frame line either side wrote.
type lineRecorder struct {
	mu     sync.Mutex
	frames map[dual.Side][][]byte
}

func (l *lineRecorder) Wants(k judge.EventKind) bool { return k == judge.EventLine }

func (l *lineRecorder) Observe(ev *judge.Event) {
	if ev.Kind != judge.EventLine || ev.LineKind != dual.Framed {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frames[ev.Side] = append(l.frames[ev.Side], append([]byte(nil), ev.Line...))
}

// Every frame the two Python SDKs write in a real run (calls, results,
// capabilities, cap_reg, logs, ready) is valid against
// schemas/frame.schema.json.
func TestFramesOfARealRunMatchTheSchema(t *testing.T) {
	for _, example := range []string{"capability", "bytes"} {
		t.Run(example, func(t *testing.T) {
			p, err := judge.LoadProblem("../examples/"+example, nil)
			if err != nil {
				t.Fatal(err)
			}
			sub, err := judge.LoadSubmission("../examples/" + example + "/solution.py")
			if err != nil {
				t.Fatal(err)
			}
			rec := &lineRecorder{frames: map[dual.Side][][]byte{}}
			runner := sandbox.NewPlain()
			defer runner.Close()
			res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: runner, Observer: rec})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != judge.Accepted {
				t.Fatalf("%s: %s %s, want Accepted", example, res.Status, res.Details)
			}
			n := 0
			for side, frames := range rec.frames {
				for _, f := range frames {
					n++
					issues, err := schemas.Check(schemas.Frame, f)
					if err != nil {
						t.Fatal(err)
					}
					for _, i := range issues {
						t.Errorf("%v wrote %s: %s", side, f, i)
					}
				}
			}
			if len(rec.frames[dual.Evaluator]) == 0 || len(rec.frames[dual.Solution]) == 0 {
				t.Fatalf("frames seen: %d from the evaluator, %d from the solution; want both", len(rec.frames[dual.Evaluator]), len(rec.frames[dual.Solution]))
			}
			t.Logf("%d frames checked", n)
		})
	}
}
