package dual

import (
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/codec"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// testNonce is the result nonce of tests that end the run with the signed
// marker.
const testNonce = "0123456789abcdef0123456789abcdef"

var testSignedMarker = codec.SignedResultMarker(testNonce)

// harness drives an Engine with a fake clock.
type harness struct {
	t   *testing.T
	e   *engine
	now time.Time
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, e: newEngine(cfg), now: t0}
	h.e.SolutionStarted(h.now, nil)
	return h
}

// live returns a harness whose solution has sent ready.
func liveHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	h := newHarness(t, cfg)
	acts := h.sol(`{"type":"ready"}`)
	if len(acts) != 1 || acts[0].Kind != actSolutionReady {
		t.Fatalf("ready gave %v", describe(acts))
	}
	return h
}

func (h *harness) eval(line string) []action {
	return snapshot(h.e.Line(Evaluator, []byte(line), h.now, nil))
}

func (h *harness) sol(line string) []action {
	return snapshot(h.e.Line(Solution, []byte(line), h.now, nil))
}

func (h *harness) advance(d time.Duration) []action {
	h.now = h.now.Add(d)
	return snapshot(h.e.Expire(h.now, nil))
}

// snapshot copies the byte slices of acts, which are only valid until the next engine call.
func snapshot(acts []action) []action {
	for i := range acts {
		acts[i].Frame = append([]byte(nil), acts[i].Frame...)
		acts[i].Text = append([]byte(nil), acts[i].Text...)
		acts[i].ID = append([]byte(nil), acts[i].ID...)
	}
	return acts
}

// describe renders actions compactly for failure messages and comparisons.
func describe(acts []action) string {
	var b strings.Builder
	for i, a := range acts {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(a.Kind.String())
		switch a.Kind {
		case actSend:
			b.WriteString(" " + a.To.String() + " " + string(a.Frame))
		case actOutput, actResultLine:
			b.WriteString(" " + string(a.Text))
		case actResult:
			if a.Plain {
				b.WriteString(" plain")
			}
			b.WriteString(" " + string(a.Text))
		case actLog:
			b.WriteString(" " + a.Stream + " " + string(a.Text))
		case actWarn:
			b.WriteString(" " + a.From.String() + " " + a.Reason.String())
		case actFatal:
			b.WriteString(" " + a.Err.Error())
		case actCallOpened:
			b.WriteString(" " + a.From.String() + " " + string(a.ID) + " " + string(a.Name))
		case actCallClosed:
			b.WriteString(" " + a.From.String() + " " + string(a.ID) + " " + string(a.Name) + " " + a.End.String() + " " + a.Took.String())
		}
	}
	return b.String()
}

func (h *harness) expect(acts []action, want string) {
	h.t.Helper()
	if got := describe(acts); got != want {
		h.t.Fatalf("actions\n got: %s\nwant: %s", got, want)
	}
}

func errFrame(id, code, msg string) string {
	return `{"type":"error","id":"` + id + `","code":"` + code + `","message":"` + msg + `"}`
}
