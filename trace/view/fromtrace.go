package view

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/trace"
)

// maxShownJSON bounds the arguments or answer the page keeps of one call:
// the detail pane shows the head of a huge value and says it was cut.
const maxShownJSON = 4 << 10

// The page lists the text of the evaluator's output lines and the
// solution's log frames up to these bounds (each line's head, so many
// lines, so many bytes in all); past them it keeps their ticks only, and
// says so. The trace holds them all.
const (
	maxShownText  = 1 << 10
	maxShownLines = 5000
	maxTextBudget = 1 << 20
)

// FromTrace is the page of a trace (docs/trace.md): the compile step;
// each process from its start to its exit; each call and capability from
// its call event to its answer, with the arguments and answer of the
// frames that carried them; solution log frames and evaluator output as
// ticks, with their text; restarts; LM requests; the verdict.
//
// A capability is drawn inside the call that was in flight to the solution
// when it was made (the latest one, when several were): the protocol does
// not say which call a capability serves.
func FromTrace(h trace.Header, evs []*trace.Event) *Model {
	m := &Model{Header: Header{
		Problem: h.Problem, SubmissionID: h.SubmissionID, Tether: h.Tether, Sandbox: h.Sandbox,
	}}
	if !h.Started.IsZero() {
		m.Header.Started = h.Started.UTC().Format(time.RFC3339)
	}
	for _, name := range slices.Sorted(maps.Keys(h.Limits)) {
		m.Header.Limits = append(m.Header.Limits, Limit{Name: name, Value: strconv.FormatInt(h.Limits[name], 10)})
	}

	type key struct{ side, id string }
	open := map[key]int{}      // call index by who made it and its id
	sent := map[key][]byte{}   // args of a call frame seen, waiting for its call event
	answer := map[key][]byte{} // the answer frame seen, waiting for its answer event
	var inFlight []int         // calls to the solution, in the order they opened
	unknown := map[string]int{}
	texts := textBudget{lines: maxShownLines, bytes: maxTextBudget}

	for _, ev := range evs {
		switch ev.Ev {
		case trace.KindLine:
			f := frameOf(ev)
			switch {
			case f == nil:
				if ev.Side == "evaluator" && ev.Kind != "frame" { // a text line or the result marker
					m.Logs = append(m.Logs, Log{AtUs: ev.T, Side: SideEvaluator, Stream: "output", Bytes: ev.Len,
						Text: texts.keep(lineText(ev))})
				}
			case f.Type == "call" || f.Type == "capability":
				sent[key{ev.Side, f.ID}] = shown(f.Args)
			case f.Type == "result":
				answer[key{otherSide(ev.Side), f.ID}] = shown(f.Value)
			case f.Type == "error":
				b, _ := json.Marshal(map[string]string{"code": f.Code, "message": f.Message})
				answer[key{otherSide(ev.Side), f.ID}] = b
			case f.Type == "log" && ev.Side == "solution":
				m.Logs = append(m.Logs, Log{AtUs: ev.T, Side: SideSolution, Stream: f.Stream, Bytes: ev.Len,
					Text: texts.keep(f.Data)})
			}
		case trace.KindCall:
			k := key{ev.Side, ev.ID}
			c := Call{ID: ev.ID, Fn: ev.Fn, Side: SideSolution, StartUs: ev.T, EndUs: -1, Outcome: OutcomePending, Parent: -1,
				Args: string(sent[k])}
			delete(sent, k)
			if ev.Side == "solution" { // a capability: the evaluator answers it
				c.Side = SideEvaluator
				if n := len(inFlight); n > 0 {
					c.Parent = inFlight[n-1]
				}
			}
			open[k] = len(m.Calls)
			if ev.Side == "evaluator" {
				inFlight = append(inFlight, len(m.Calls))
			}
			m.Calls = append(m.Calls, c)
		case trace.KindAnswer:
			k := key{ev.Side, ev.ID}
			i, ok := open[k]
			if !ok { // refused at the door: never opened
				i = len(m.Calls)
				m.Calls = append(m.Calls, Call{ID: ev.ID, Fn: ev.Fn, Side: answeredBy(ev.Side), StartUs: ev.T - ev.Us, Parent: -1,
					Args: string(sent[k])})
				delete(sent, k)
			}
			delete(open, k)
			c := &m.Calls[i]
			c.EndUs, c.Outcome, c.Answer = c.StartUs+ev.Us, outcomeOf(ev.Outcome), string(answer[k])
			delete(answer, k)
			for j, f := range inFlight {
				if f == i {
					inFlight = append(inFlight[:j], inFlight[j+1:]...)
					break
				}
			}
		case trace.KindRestart:
			m.Restarts = append(m.Restarts, ev.T)
		case trace.KindStart:
			m.Processes = append(m.Processes, Process{Side: ev.Side, N: ev.N, StartUs: ev.T, EndUs: -1})
		case trace.KindExit:
			p := startedProcess(m.Processes, ev.Side, ev.N)
			if p == nil { // a trace of an older tether records no start
				m.Processes = append(m.Processes, Process{Side: ev.Side, N: ev.N, StartUs: -1})
				p = &m.Processes[len(m.Processes)-1]
			}
			p.EndUs = ev.T
			p.Exit, p.Failed = describeExit(ev.Exit)
		case trace.KindCompile:
			if c := ev.Compile; c != nil {
				m.Compile = &Compile{Language: c.Language, StartUs: ev.T - ev.Us, EndUs: ev.T, TimeMs: c.TimeMs, MemoryKB: c.MemoryKB,
					Cached: c.Cached, Outcome: c.Outcome, Reason: c.Reason, Message: c.Message}
				m.Header.Language = c.Language
			}
		case trace.KindLM:
			if r := ev.LM; r != nil {
				m.LM = append(m.LM, LMRequest{StartUs: ev.T - r.LatencyUs, EndUs: ev.T, Model: r.Model, Depth: r.Depth,
					PromptBytes: int64(r.PromptBytes), CompletionBytes: int64(r.CompletionBytes),
					PromptTokens: r.InputTokens, CompletionTokens: r.OutputTokens, Error: r.Error})
			}
		case trace.KindVerdict:
			if r := ev.Result; r != nil {
				score := r.Score
				m.Header.Verdict, m.Header.Score, m.Header.TimeMs, m.Header.MemoryKB = r.Status.String(), &score, r.TimeMs, r.MemoryKB
				if r.Language != "" {
					m.Header.Language = r.Language
				}
				var d struct {
					Message string `json:"message"`
				}
				if json.Unmarshal(r.Details, &d) == nil {
					m.Header.Message = d.Message
				}
			}
		case trace.KindEnd:
			if ev.Capped {
				m.Notes = append(m.Notes, fmt.Sprintf("The trace reached its cap of %d bytes (--trace-max): what followed was counted, not recorded, so calls after it are missing or shown as pending.", ev.Max))
			}
		case trace.KindDrop:
		default:
			unknown[ev.Ev]++
		}
	}
	if texts.left > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("The text of %d output lines and log frames is not shown: the page keeps the first %d, at most %d KiB in all (their ticks are on the timeline; the trace has them all).",
			texts.left, maxShownLines, maxTextBudget>>10))
	}
	for _, kind := range slices.Sorted(maps.Keys(unknown)) {
		m.Notes = append(m.Notes, fmt.Sprintf("%d events of kind %q, from a newer tether, are not shown.", unknown[kind], kind))
	}
	return m
}

// frameOf decodes the parts of a line event's frame the page shows, or nil
// for a text line or a frame kept only as text.
func frameOf(ev *trace.Event) *lineFrame {
	if len(ev.Frame) == 0 {
		return nil
	}
	var f lineFrame
	if json.Unmarshal(ev.Frame, &f) != nil {
		return nil
	}
	return &f
}

// startedProcess is the process of side numbered n that started and has
// not exited, nil if none.
func startedProcess(ps []Process, side string, n int) *Process {
	for i := len(ps) - 1; i >= 0; i-- {
		if p := &ps[i]; p.Side == side && p.N == n && p.EndUs < 0 && p.StartUs >= 0 {
			return p
		}
	}
	return nil
}

// describeExit says how a process ended, and whether it failed: ended
// otherwise than with status 0 or a kill by the judge (which ends every
// run, and a solution at a restart).
func describeExit(e *judge.ProcessExit) (string, bool) {
	switch {
	case e == nil:
		return "ended", false
	case e.Error != "":
		return "could not be waited for: " + e.Error, true
	case e.Signal != "" && e.KilledByJudge:
		return "killed by " + e.Signal + " (the judge)", false
	case e.Signal != "":
		return "killed by " + e.Signal, true
	case e.ExitCode != nil:
		return fmt.Sprintf("exit status %d", *e.ExitCode), *e.ExitCode != 0
	}
	return "ended", false
}

// lineText is a line event's text: a text line's, or a frame's as written.
func lineText(ev *trace.Event) string {
	if ev.Text != nil {
		return *ev.Text
	}
	return string(ev.Frame)
}

// textBudget keeps the head of each text until it has kept so many lines
// or bytes; left counts the texts it dropped.
type textBudget struct {
	lines, bytes, left int
}

func (b *textBudget) keep(s string) string {
	if b.lines == 0 || b.bytes <= 0 {
		b.left++
		return ""
	}
	if len(s) > maxShownText { // the trace's text is UTF-8: only a character cut in two is left out
		s = strings.ToValidUTF8(s[:maxShownText], "") + "…"
	}
	b.lines--
	b.bytes -= len(s)
	return s
}

type lineFrame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Args    json.RawMessage `json:"args"`
	Value   json.RawMessage `json:"value"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Stream  string          `json:"stream"`
	Data    string          `json:"data"`
}

// shown is a value as the page keeps it: whole when small, else its head
// as a JSON string saying how long it was.
func shown(v json.RawMessage) []byte {
	if len(v) <= maxShownJSON {
		return v
	}
	b, _ := json.Marshal(fmt.Sprintf("%s… (%d bytes, cut)", v[:maxShownJSON], len(v)))
	return b
}

// otherSide is who a frame from side answers: a result from the solution
// answers a call the evaluator made.
func otherSide(side string) string {
	if side == "solution" {
		return "evaluator"
	}
	return "solution"
}

// answeredBy is the lane of a call made by side.
func answeredBy(side string) string {
	if side == "solution" {
		return SideEvaluator
	}
	return SideSolution
}

// outcomeOf maps the trace's outcomes to the page's colours.
func outcomeOf(o string) string {
	switch o {
	case "result":
		return OutcomeOK
	case "error":
		return OutcomeError
	case "timeout":
		return OutcomeTimeout
	case "rejected", "refused":
		return OutcomeRejected
	case "failed", "abandoned": // ended by a restart, or a side that was gone
		return OutcomeRestart
	}
	return OutcomePending
}
