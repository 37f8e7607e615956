// Package view renders a run as one self-contained HTML page: a timeline
// with a lane per side and one for the LM, a table of calls, per-function
// statistics and a detail pane. The page's script and style are embedded in
// the binary and inlined into the page, and the run's data travels inside
// it, so the file makes no network request and can be attached to a ticket.
//
// The page reads a Model, not the trace file: the trace package turns a
// trace into a Model (see FromTrace), so the page does not change when the
// trace format gains events.
package view

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

//go:embed assets/viewer.html
var pageHTML string

//go:embed assets/viewer.css
var pageCSS string

//go:embed assets/viewer.js
var pageJS string

// Model is what the page shows. Times are microseconds since the run began.
type Model struct {
	Header    Header
	Compile   *Compile // the submission's compile step, nil when there was none
	Processes []Process
	Calls     []Call
	Logs      []Log
	LM        []LMRequest
	Restarts  []int64 // when the solution was restarted
	// Notes are shown under the header: a trace cut at its size cap, events
	// the converter did not understand.
	Notes []string
}

// Header is the run at a glance.
type Header struct {
	Problem      string  `json:"problem"`
	SubmissionID string  `json:"submission_id"`
	Started      string  `json:"started"` // RFC 3339
	Tether       string  `json:"tether"`  // version that wrote the trace
	Sandbox      string  `json:"sandbox"`
	Language     string  `json:"language"` // the submission's language id
	Verdict      string  `json:"verdict"`
	Score        *int64  `json:"score"`   // the result's 0-10000 scale
	TimeMs       int64   `json:"time_ms"` // the result's: from the evaluator's first output to the end of the run
	MemoryKB     int64   `json:"memory_kb"`
	Message      string  `json:"message"`
	Limits       []Limit `json:"limits"`
}

// Limit is one limit of the problem, shown as "name value".
type Limit struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Outcomes of a call, the keys of the page's colours.
const (
	OutcomeOK       = "ok"
	OutcomeError    = "error"
	OutcomeTimeout  = "timeout"
	OutcomeRejected = "rejected"
	OutcomeRestart  = "restart" // ended by a restart of the solution
	OutcomePending  = "pending" // never answered
)

// Sides of the page's lanes: who answers a call.
const (
	SideSolution  = "solution"  // a call from the evaluator
	SideEvaluator = "evaluator" // a capability the solution called
)

// Call is one call or capability, from request to answer.
type Call struct {
	ID      string
	Fn      string
	Side    string // SideSolution or SideEvaluator
	StartUs int64
	EndUs   int64  // < StartUs while pending
	Outcome string // one of the Outcome constants
	Parent  int    // index in Model.Calls of the call a capability ran in, -1 if none
	Args    string // JSON text, possibly cut by the trace
	Answer  string // JSON text of the result or error
}

// Log is one solution log frame or evaluator output line, drawn as a tick
// and listed with its text.
type Log struct {
	AtUs   int64
	Side   string // SideSolution: a log frame; SideEvaluator: an output line
	Stream string // a log frame's stream; "output" for the evaluator's
	Bytes  int64  // the line's length
	Text   string // what it said, possibly cut; "" past the page's budget (see FromTrace)
}

// Process is one process of a side, from its start to its exit.
type Process struct {
	Side    string `json:"side"`   // SideSolution or SideEvaluator: whose process
	N       int    `json:"n"`      // the solution's process number: restarts before it
	StartUs int64  `json:"t0"`     // -1: not recorded (a trace of an older tether)
	EndUs   int64  `json:"t1"`     // -1: no exit recorded
	Exit    string `json:"exit"`   // how it ended, in words ("exit status 0", "killed by SIGKILL (the judge)")
	Failed  bool   `json:"failed"` // it ended otherwise than with status 0 or a kill by the judge
}

// Compile is the submission's compile step, before the run's clock.
type Compile struct {
	Language string `json:"language"`
	StartUs  int64  `json:"t0"`
	EndUs    int64  `json:"t1"`
	TimeMs   int64  `json:"time_ms"`   // the compiler's wall time
	MemoryKB int64  `json:"memory_kb"` // the compiler's peak memory
	Cached   bool   `json:"cached"`
	Outcome  string `json:"outcome"` // "ok" or "CompileError"
	Reason   string `json:"reason"`
	Message  string `json:"message"` // the head of the compiler's messages
}

// LMRequest is one request to the run's LM handler.
type LMRequest struct {
	StartUs, EndUs   int64
	Model            string
	Depth            int
	PromptBytes      int64
	CompletionBytes  int64
	PromptTokens     int64
	CompletionTokens int64
	Error            string
}

// page is the JSON the script reads: columns, not objects, so that 100,000
// calls stay small and parse quickly.
type page struct {
	Header    Header    `json:"header"`
	Compile   *Compile  `json:"compile"`
	Processes []Process `json:"processes"`
	Notes     []string  `json:"notes"`
	Restarts  []int64   `json:"restarts"`
	Fns       []string  `json:"fns"`
	Calls     struct {
		ID      []string `json:"id"`
		Fn      []int    `json:"fn"`   // index in Fns
		Side    []int    `json:"side"` // 0 solution, 1 evaluator
		Start   []int64  `json:"t0"`
		End     []int64  `json:"t1"`
		Outcome []int    `json:"out"` // index in outcomes
		Parent  []int    `json:"parent"`
		Args    []string `json:"args"`
		Answer  []string `json:"ans"`
	} `json:"calls"`
	Outcomes []string   `json:"outcomes"`
	Logs     [][5]any   `json:"logs"` // at, side (0/1), stream, bytes, text
	LM       []lmColumn `json:"lm"`
}

type lmColumn struct {
	Start            int64  `json:"t0"`
	End              int64  `json:"t1"`
	Model            string `json:"model"`
	Depth            int    `json:"depth"`
	PromptBytes      int64  `json:"prompt_bytes"`
	CompletionBytes  int64  `json:"completion_bytes"`
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	Error            string `json:"error,omitempty"`
}

var outcomes = []string{OutcomeOK, OutcomeError, OutcomeTimeout, OutcomeRejected, OutcomeRestart, OutcomePending}

func sideIndex(side string) int {
	if side == SideEvaluator {
		return 1
	}
	return 0
}

func (m *Model) page() (*page, error) {
	p := &page{Header: m.Header, Compile: m.Compile, Processes: m.Processes, Notes: m.Notes, Restarts: m.Restarts, Outcomes: outcomes}
	if p.Processes == nil {
		p.Processes = []Process{}
	}
	if p.Notes == nil {
		p.Notes = []string{}
	}
	if p.Restarts == nil {
		p.Restarts = []int64{}
	}
	if p.Header.Limits == nil {
		p.Header.Limits = []Limit{}
	}
	fnIndex := map[string]int{}
	outIndex := map[string]int{}
	for i, o := range outcomes {
		outIndex[o] = i
	}
	n := len(m.Calls)
	c := &p.Calls
	c.ID, c.Fn, c.Side = make([]string, n), make([]int, n), make([]int, n)
	c.Start, c.End, c.Outcome, c.Parent = make([]int64, n), make([]int64, n), make([]int, n), make([]int, n)
	c.Args, c.Answer = make([]string, n), make([]string, n)
	p.Fns = []string{}
	for i, call := range m.Calls {
		fi, ok := fnIndex[call.Fn]
		if !ok {
			fi = len(p.Fns)
			fnIndex[call.Fn] = fi
			p.Fns = append(p.Fns, call.Fn)
		}
		oi, ok := outIndex[call.Outcome]
		if !ok {
			return nil, fmt.Errorf("trace view: call %q has outcome %q; want one of %s", call.ID, call.Outcome, strings.Join(outcomes, ", "))
		}
		if call.Parent >= n || call.Parent == i {
			return nil, fmt.Errorf("trace view: call %q names parent %d of %d calls", call.ID, call.Parent, n)
		}
		c.ID[i], c.Fn[i], c.Side[i] = call.ID, fi, sideIndex(call.Side)
		c.Start[i], c.End[i], c.Outcome[i], c.Parent[i] = call.StartUs, call.EndUs, oi, call.Parent
		c.Args[i], c.Answer[i] = call.Args, call.Answer
	}
	p.Logs = make([][5]any, len(m.Logs))
	for i, l := range m.Logs {
		p.Logs[i] = [5]any{l.AtUs, sideIndex(l.Side), l.Stream, l.Bytes, l.Text}
	}
	p.LM = make([]lmColumn, len(m.LM))
	for i, r := range m.LM {
		p.LM[i] = lmColumn{r.StartUs, r.EndUs, r.Model, r.Depth, r.PromptBytes, r.CompletionBytes, r.PromptTokens, r.CompletionTokens, r.Error}
	}
	return p, nil
}

// Render writes the page for m to w.
func Render(w io.Writer, m *Model) error {
	p, err := m.page()
	if err != nil {
		return err
	}
	// encoding/json escapes <, > and & inside strings, so no string of the
	// run can close the script element that carries the data.
	data, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("trace view: encoding the page data: %w", err)
	}
	title := "tether run"
	if m.Header.Problem != "" {
		title += " · " + m.Header.Problem
	}
	r := strings.NewReplacer(
		"{{TITLE}}", htmlEscape(title),
		"{{CSS}}", pageCSS,
		"{{JS}}", pageJS,
		"{{DATA}}", string(data),
	)
	_, err = r.WriteString(w, pageHTML)
	return err
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
