package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/dual"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
)

var t0 = time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// everyKind is one event of each kind a trace records, a call with its
// frame, and three kinds it does not record.
func everyKind() []*judge.Event {
	code := 0
	return []*judge.Event{
		{Event: dual.Event{Kind: judge.EventCallOpened, At: at(1), Side: dual.Evaluator, ID: []byte("c1"), Name: []byte("add"), LineKind: dual.Framed, Line: []byte(`{"type":"call","id":"c1","fn":"add","args":[1,2]}`), Length: 49}},
		{Event: dual.Event{Kind: judge.EventLine, At: at(2), Side: dual.Solution, LineKind: dual.Text, Line: []byte("stray \"text\"\x01\xff"), Length: 15}},
		{Event: dual.Event{Kind: judge.EventDrop, At: at(2), Side: dual.Solution, Reason: dual.DropSolutionText}},
		{Event: dual.Event{Kind: judge.EventCallClosed, At: at(5), Side: dual.Evaluator, ID: []byte("c1"), Name: []byte("add"), Outcome: dual.EndTimeout, Took: 4 * time.Millisecond}},
		{Event: dual.Event{Kind: judge.EventRestart, At: at(6), Side: dual.Solution, Restarts: 1}},
		{Event: dual.Event{Kind: judge.EventSideExit, At: at(6), Side: dual.Solution}, Exit: &judge.ProcessExit{Signal: "SIGKILL", KilledByJudge: true}},
		{Event: dual.Event{Kind: judge.EventLM, At: at(7), Side: dual.Evaluator}, LM: &judge.LMRequest{Model: "m", Backend: "echo", Depth: 1,
			PromptBytes: 10, CompletionBytes: 20, InputTokens: 3, OutputTokens: 4, LatencyUs: 500,
			Budget: judge.LMBudget{Calls: 1, CallsLimit: 3}}},
		{Event: dual.Event{Kind: judge.EventLine, At: at(8), Side: dual.Evaluator, LineKind: dual.Marker, Line: []byte("---RESULT---"), Length: 12}},
		{Event: dual.Event{Kind: judge.EventOutput, At: at(8), Text: []byte("ignored")}},
		{Event: dual.Event{Kind: judge.EventProgress, At: at(8), Stats: &dual.Stats{}}},
		{Event: dual.Event{Kind: judge.EventLog, At: at(8), Text: []byte("ignored")}},
		{Event: dual.Event{Kind: judge.EventSideExit, At: at(9), Side: dual.Evaluator}, Exit: &judge.ProcessExit{ExitCode: &code}},
		{Event: dual.Event{Kind: judge.EventSideStart, At: at(9), Side: dual.Solution, Restarts: 2}},
		{Event: dual.Event{Kind: judge.EventCompile, At: at(9), Took: 3 * time.Millisecond}, Compile: &judge.CompileStep{Language: "cpp",
			Stats: lang.Stats{TimeMs: 2, MemoryKB: 4096}, Outcome: "CompileError", Reason: "the compiler exited with status 1",
			Message: "main.cpp:1:1: error: x"}},
		{Event: dual.Event{Kind: judge.EventSideExit, At: at(9), Side: dual.Solution, Restarts: 2}, Exit: &judge.ProcessExit{Signal: "SIGSEGV"}},
		{Event: dual.Event{Kind: judge.EventVerdict, At: at(10)}, Result: &judge.Result{Status: judge.Accepted, Score: 10000}},
	}
}

func record(t *testing.T, max int64, evs []*judge.Event) (string, Header, []*Event) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, Header{Problem: "p", SubmissionID: "s", Started: t0,
		Sides: map[string]Exec{"evaluator": {Command: []string{"python3", "evaluate.py"}}}}, max)
	for _, ev := range evs {
		w.Observe(ev)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("line %d is not JSON: %s", i+1, line)
		}
	}
	h, got, err := ReadAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("%v in:\n%s", err, buf.String())
	}
	return buf.String(), h, got
}

// Every kind round-trips; the call's frame is recorded in the call event
// (format 2 on) and read back as the line event before it.
func TestEveryEventKindRoundTrips(t *testing.T) {
	text, h, got := record(t, 0, everyKind())
	if h.Trace != Version || h.Problem != "p" || h.SubmissionID != "s" || !h.Started.Equal(t0) ||
		h.Sides["evaluator"].Command[1] != "evaluate.py" {
		t.Fatalf("header %+v", h)
	}
	var kinds []string
	for _, ev := range got {
		kinds = append(kinds, ev.Ev)
	}
	want := "line call line drop answer restart exit lm line exit start compile exit verdict end"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("kinds %q, want %q\n%s", strings.Join(kinds, " "), want, text)
	}
	call, text1, answer, lm, end := got[0], got[2], got[4], got[7], got[14]
	if call.T != 1000 || call.Side != "evaluator" || call.Kind != "frame" || call.Len != 49 ||
		string(call.Frame) != `{"type":"call","id":"c1","fn":"add","args":[1,2]}` {
		t.Errorf("frame line %+v", call)
	}
	if text1.Text == nil || *text1.Text != "stray \"text\"\x01\uFFFD" || text1.Frame != nil {
		t.Errorf("text line %+v", text1)
	}
	if answer.ID != "c1" || answer.Fn != "add" || answer.Outcome != "timeout" || answer.Us != 4000 || answer.T != 5000 {
		t.Errorf("answer %+v", answer)
	}
	if got[3].Reason != "solution-text" || got[5].N != 1 || !got[6].Exit.KilledByJudge || *got[9].Exit.ExitCode != 0 {
		t.Errorf("drop, restart or exit: %+v %+v %+v %+v", got[3], got[5], got[6], got[9])
	}
	if lm.LM == nil || lm.LM.Backend != "echo" || lm.LM.OutputTokens != 4 || lm.LM.Budget.CallsLimit != 3 {
		t.Errorf("lm %+v", lm.LM)
	}
	if start := got[10]; start.Side != "solution" || start.N != 2 || start.T != 9000 {
		t.Errorf("start %+v", start)
	}
	if c := got[11]; c.Side != "" || c.Us != 3000 || c.Compile == nil || *c.Compile != *everyKind()[13].Compile {
		t.Errorf("compile %+v: %+v", c, c.Compile)
	}
	if exit := got[12]; exit.Side != "solution" || exit.N != 2 || exit.Exit.Signal != "SIGSEGV" || got[6].N != 0 {
		t.Errorf("exit of the solution's third process %+v", exit)
	}
	if got[13].Result.Status != judge.Accepted || got[13].Result.Score != 10000 {
		t.Errorf("verdict %+v", got[13].Result)
	}
	if end.Events != 13 || end.Capped || end.Bytes != int64(len(text)-len(strings.SplitAfter(text, "\n")[14])) {
		t.Errorf("end %+v", end)
	}
}

// A frame's big __bytes__ values are kept as size and head; small ones,
// and frames that are not plain JSON, are kept as they are.
func TestBytesAreSummarised(t *testing.T) {
	big := strings.Repeat("QUJD", 100) // 300 bytes
	lines := []string{
		`{"type":"result","id":"r","value":{"__bytes__":"` + big + `"}}`,
		`{"type":"result","id":"r","value":[{"__bytes__":"QUJD"},{"k":{"__bytes__":"` + big + `=="}}]}`,
		`{"type":"result","id":"r","value":NaN}`,
	}
	var evs []*judge.Event
	for _, l := range lines {
		evs = append(evs, &judge.Event{Event: dual.Event{Kind: judge.EventLine, At: at(1), LineKind: dual.Framed, Line: []byte(l), Length: int64(len(l))}})
	}
	_, _, got := record(t, 0, evs)
	if want := `{"id":"r","type":"result","value":{"__bytes__":{"head":"` + big[:64] + `","size":300}}}`; string(got[0].Frame) != want {
		t.Errorf("frame %s\nwant  %s", got[0].Frame, want)
	}
	if !strings.Contains(string(got[1].Frame), `{"__bytes__":"QUJD"}`) || !strings.Contains(string(got[1].Frame), `"size":298`) {
		t.Errorf("frame %s", got[1].Frame)
	}
	if got[2].Frame != nil || got[2].Text == nil || *got[2].Text != lines[2] {
		t.Errorf("NaN frame %+v", got[2])
	}
}

// Past the cap nothing but the verdict is recorded; the end line counts
// what was left out.
func TestCapStopsRecordingAndSaysSo(t *testing.T) {
	line := []byte(`{"type":"log","stream":"stdout","data":"` + strings.Repeat("x", 100) + `"}`)
	var evs []*judge.Event
	for range 1000 {
		evs = append(evs, &judge.Event{Event: dual.Event{Kind: judge.EventLine, At: at(1), Side: dual.Solution, LineKind: dual.Framed, Line: line, Length: int64(len(line))}})
	}
	evs = append(evs, &judge.Event{Event: dual.Event{Kind: judge.EventDrop, At: at(2), Reason: dual.DropLogBudget}},
		&judge.Event{Event: dual.Event{Kind: judge.EventVerdict, At: at(3)}, Result: &judge.Result{Status: judge.WrongAnswer}})
	text, _, got := record(t, 10<<10, evs)
	end := got[len(got)-1]
	if got[len(got)-2].Ev != KindVerdict || end.Ev != KindEnd || !end.Capped || end.Max != 10<<10 {
		t.Fatalf("last lines %+v %+v", got[len(got)-2], end)
	}
	lines := len(got) - 2 // the lines recorded before the cap
	if end.Events != int64(lines+1) || end.Unrecorded["line"] != int64(1000-lines) || end.Unrecorded["drop"] != 1 ||
		end.UnrecordedBytes != int64(1000-lines)*int64(len(line)) {
		t.Fatalf("end %+v after %d recorded lines", end, lines)
	}
	if head := strings.Index(text, `"ev":"verdict"`); head > 10<<10 || head < 9<<10 {
		t.Fatalf("%d bytes before the verdict for a 10 KiB cap", head)
	}
}

func TestReaderRefusesWhatItCannotRead(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{`{"title":"x"}` + "\n", "not a trace file"},
		{`{"trace":4}` + "\n", "format version 4 is newer"},
	} {
		if _, err := NewReader(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	rd, err := NewReader(strings.NewReader(`{"trace":1}` + "\n" + `{"t":1,"ev":"future-kind","x":1}` + "\n{oops\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := rd.Next(); err != nil || ev.Ev != "future-kind" {
		t.Fatalf("an unknown kind is returned for the caller to skip: %+v %v", ev, err)
	}
	if _, err := rd.Next(); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("bad line: %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrorIsReported(t *testing.T) {
	w := NewWriter(failingWriter{}, Header{}, 0)
	w.Observe(everyKind()[0])
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close: %v", err)
	}
}

// scanFrame tests 8 bytes at a time: NaN, Infinity and "__bytes__" are
// found wherever they start, in a word or across two, as bytes.Contains
// finds them.
func TestScanFrameFindsWhatContainsFinds(t *testing.T) {
	for _, word := range []string{"NaN", "Infinity", `"__bytes__"`, "Na", "Infinit", `__bytes__"`, `"__bytes_`, "N_I"} {
		for pos := range 20 {
			line := []byte(strings.Repeat("a", pos) + word + strings.Repeat("b", 20-pos))
			nonFinite, hasBytes := scanFrame(line)
			wantNonFinite := bytes.Contains(line, []byte("NaN")) || bytes.Contains(line, []byte("Infinity"))
			if nonFinite != wantNonFinite || (!nonFinite && hasBytes != bytes.Contains(line, bytesKey)) {
				t.Fatalf("%q: nonFinite %v, __bytes__ %v", line, nonFinite, hasBytes)
			}
		}
	}
}

// A call and its answer are each recorded with the frame that opened or
// answered it, when the judge tells them together; the reader gives them
// back as a line and a call (or answer), as version 1 wrote them. A
// refused call's line, an answer's line that is not a whole frame, and a
// line told on its own are recorded on their own, before the call.
func TestCallsAndAnswersCarryTheirFrames(t *testing.T) {
	framed := func(ms int, side dual.Side, line string) *judge.Event {
		return &judge.Event{Event: dual.Event{Kind: judge.EventLine, At: at(ms), Side: side, LineKind: dual.Framed, Line: []byte(line), Length: int64(len(line))}}
	}
	opened := func(ms int, side dual.Side, id, line string) *judge.Event {
		ev := &judge.Event{Event: dual.Event{Kind: judge.EventCallOpened, At: at(ms), Side: side, ID: []byte(id), Name: []byte("f")}}
		if line != "" {
			ev.Line, ev.Length, ev.LineKind = []byte(line), int64(len(line)), dual.Framed
		}
		return ev
	}
	closed := func(ms int, side dual.Side, id string, o dual.CallEnd, line string) *judge.Event {
		ev := opened(ms, side, id, line)
		ev.Kind, ev.Outcome, ev.Took = judge.EventCallClosed, o, time.Millisecond
		return ev
	}
	cut := closed(7, dual.Evaluator, "b", dual.EndRejected, `{"type":"result","id":"b","value":"xx`)
	cut.Length, cut.LineKind = 1<<30, dual.Text
	evs := []*judge.Event{
		opened(1, dual.Evaluator, "a", `{"type":"call","id":"a","fn":"f","args":[]}`),                                // folded
		opened(2, dual.Solution, "k", `{"type":"call","id":"k","fn":"f","args":[NaN]}`),                              // folded, kept as text
		closed(3, dual.Solution, "k", dual.EndResult, `{"type":"result","id":"k","value":1}`),                        // folded
		closed(4, dual.Evaluator, "a", dual.EndError, `{"type":"error","id":"a","error":{"code":1,"message":"m"}}`),  // folded
		closed(5, dual.Evaluator, "a", dual.EndRefused, `{"type":"call","id":"a","fn":"f","args":[]}`),               // not: refused
		framed(6, dual.Evaluator, `{"type":"call","id":"b","fn":"f","args":[]}`), opened(6, dual.Evaluator, "b", ""), // not: told apart
		cut, // not: a cut line
		closed(8, dual.Evaluator, "b", dual.EndTimeout, ""), // no line
	}
	text, _, got := record(t, 0, evs)
	if n := strings.Count(text, "\n"); n != 1+11+1 { // header, 11 events, end
		t.Fatalf("%d lines, want 13:\n%s", n, text)
	}
	for _, want := range []string{
		// a frame kept as written holds the id, its length, and a call's fn
		`"ev":"call","side":"evaluator","frame":{"type":"call","id":"a","fn":"f","args":[]}}`,
		`"ev":"answer","side":"solution","fn":"f","outcome":"result","us":1000,"frame":{"type":"result","id":"k","value":1}}`,
		// one kept as text does not: they are read off it as the judge reads them
		`"ev":"call","side":"solution","id":"k","fn":"f","len":46,"text":"{\"type\":\"call\",\"id\":\"k\",\"fn\":\"f\",\"args\":[NaN]}"}`,
		// a cut line is recorded on its own, by the side that wrote it
		`"ev":"line","side":"solution","kind":"text","len":1073741824,"cut":true,"text":"{\"type\":\"result\",\"id\":\"b\",\"value\":\"xx"}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in\n%s", want, text)
		}
	}
	var seq []string
	for _, ev := range got {
		seq = append(seq, ev.Ev+"/"+ev.Side)
	}
	want := "line/evaluator call/evaluator line/solution call/solution line/evaluator answer/solution " +
		"line/solution answer/evaluator line/evaluator answer/evaluator line/evaluator call/evaluator " +
		"line/solution answer/evaluator answer/evaluator end/"
	if strings.Join(seq, " ") != want {
		t.Fatalf("read back as\n%s\nwant\n%s", strings.Join(seq, " "), want)
	}
	if l, c := got[6], got[7]; l.T != 4000 || l.Kind != "frame" || l.Len != 58 || !strings.Contains(string(l.Frame), `"error"`) ||
		c.Outcome != "error" || c.ID != "a" || c.Us != 1000 || c.Frame != nil || c.Len != 0 {
		t.Errorf("the error answer read back as %+v and %+v", l, c)
	}
	if l := got[2]; l.Text == nil || l.Frame != nil {
		t.Errorf("the NaN frame read back as %+v", l)
	}
	if l, c := got[8], got[9]; l.T != 5000 || l.Side != "evaluator" || l.Frame == nil || c.Outcome != "refused" || c.Frame != nil {
		t.Errorf("the refused call read back as %+v and %+v", l, c)
	}
	for i, want := range map[int]string{1: "a/f", 3: "k/f", 5: "k/f"} {
		if ev := got[i]; ev.ID+"/"+ev.Fn != want || got[i-1].Len != int64(len(got[i-1].Frame)+len(deref(got[i-1].Text))) {
			t.Errorf("event %d read back as %+v after %+v, want id/fn %s", i, ev, got[i-1], want)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A frame kept as written gives the reader the id (and a call's fn, a
// capability's name) decoded as the judge decoded them for the writer:
// escapes decoded, a lone surrogate as U+FFFD, as a trace written with
// the id has them.
func TestIDsAndNamesAreReadOffTheFrame(t *testing.T) {
	cases := []struct {
		side           dual.Side
		line           string
		id, name       string // as the judge reports them with the call
		wantID, wantFn string
	}{
		{dual.Evaluator, `{"type":"call","id":"a\u00e9\\\"","fn":"f\n","args":[]}`, "aé\\\"", "f\n", "aé\\\"", "f\n"},
		{dual.Solution, `{"type":"capability","id":"c1","name":"ask","args":[]}`, "c1", "ask", "c1", "ask"},
		{dual.Evaluator, `{"type":"call","id":"\ud800x","fn":"f","args":[]}`, "\uFFFDx", "f", "\uFFFDx", "f"},
	}
	for _, c := range cases {
		evs := []*judge.Event{{Event: dual.Event{Kind: judge.EventCallOpened, At: at(1), Side: c.side, ID: []byte(c.id), Name: []byte(c.name),
			LineKind: dual.Framed, Line: []byte(c.line), Length: int64(len(c.line))}}}
		text, _, got := record(t, 0, evs)
		if !strings.Contains(text, `"ev":"call","side":"`+c.side.String()+`","frame":`) {
			t.Errorf("%s: not kept as written:\n%s", c.line, text)
		}
		if call := got[1]; call.Ev != KindCall || call.ID != c.wantID || call.Fn != c.wantFn {
			t.Errorf("%s: read back as id %q fn %q, want %q %q", c.line, call.ID, call.Fn, c.wantID, c.wantFn)
		}
	}
}

// Version 1 and version 2 traces read as they always did: the same call
// and answer, written by each version, read back alike.
func TestOlderVersionsStillRead(t *testing.T) {
	call := `{"type":"call","id":"a","fn":"f","args":[]}`
	res := `{"type":"result","id":"a","value":1}`
	versions := map[int]string{
		1: `{"t":1,"ev":"line","side":"evaluator","kind":"frame","len":43,"frame":` + call + `}` + "\n" +
			`{"t":1,"ev":"call","side":"evaluator","id":"a","fn":"f"}` + "\n" +
			`{"t":2,"ev":"line","side":"solution","kind":"frame","len":36,"frame":` + res + `}` + "\n" +
			`{"t":2,"ev":"answer","side":"evaluator","id":"a","fn":"f","outcome":"result","us":1}` + "\n",
		2: `{"t":1,"ev":"call","side":"evaluator","id":"a","fn":"f","len":43,"frame":` + call + `}` + "\n" +
			`{"t":2,"ev":"answer","side":"evaluator","id":"a","fn":"f","outcome":"result","us":1,"len":36,"frame":` + res + `}` + "\n",
		3: `{"t":1,"ev":"call","side":"evaluator","frame":` + call + `}` + "\n" +
			`{"t":2,"ev":"answer","side":"evaluator","fn":"f","outcome":"result","us":1,"frame":` + res + `}` + "\n",
	}
	var first string
	for v := 1; v <= 3; v++ {
		_, evs, err := ReadAll(strings.NewReader(fmt.Sprintf(`{"trace":%d}`, v) + "\n" + versions[v]))
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		b, _ := json.Marshal(evs)
		if v == 1 {
			first = string(b)
		} else if string(b) != first {
			t.Errorf("version %d read as\n%s\nversion 1 as\n%s", v, b, first)
		}
	}
}

// Past the cap, a call or answer that carries its frame is counted as
// what format 1 would have left out: the call or answer, and its line
// with its bytes.
func TestCapCountsTheFramesOfCallsLeftOut(t *testing.T) {
	var evs []*judge.Event
	var lineBytes int64
	for i := range 200 {
		call := []byte(fmt.Sprintf(`{"type":"call","id":"c%d","fn":"f","args":[%q]}`, i, strings.Repeat("x", 100)))
		id := []byte(fmt.Sprintf("c%d", i))
		evs = append(evs, &judge.Event{Event: dual.Event{Kind: judge.EventCallOpened, At: at(i), Side: dual.Evaluator, ID: id, Name: []byte("f"), LineKind: dual.Framed, Line: call, Length: int64(len(call))}})
		lineBytes += int64(len(call))
	}
	evs = append(evs, &judge.Event{Event: dual.Event{Kind: judge.EventVerdict, At: at(300)}, Result: &judge.Result{Status: judge.Accepted}})
	_, _, got := record(t, 8<<10, evs)
	end := got[len(got)-1]
	var kept, keptBytes int64
	for _, ev := range got {
		if ev.Ev == KindLine {
			kept++
			keptBytes += ev.Len
		}
	}
	if !end.Capped || end.Unrecorded["call"] != 200-kept || end.Unrecorded["line"] != 200-kept ||
		end.UnrecordedBytes != lineBytes-keptBytes {
		t.Fatalf("after %d calls kept: end %+v, want %d calls and lines and %d bytes left out",
			kept, end, 200-kept, lineBytes-keptBytes)
	}
}

// writes hands each Write to the test.
type writes chan string

func (w writes) Write(b []byte) (int, error) { w <- string(b); return len(b), nil }

// What a run recorded reaches the file within flushEvery even when no
// more events come.
func TestEventsReachTheFileWithoutMoreEvents(t *testing.T) {
	out := make(writes, 4)
	w := NewWriter(out, Header{Started: t0}, 0)
	w.Observe(&judge.Event{Event: dual.Event{Kind: judge.EventLine, At: at(1), Side: dual.Evaluator, LineKind: dual.Text, Line: []byte("hello"), Length: 5}})
	call := `{"type":"call","id":"a","fn":"f","args":[]}`
	w.Observe(&judge.Event{Event: dual.Event{Kind: judge.EventCallOpened, At: at(2), Side: dual.Evaluator, ID: []byte("a"), Name: []byte("f"), LineKind: dual.Framed, Line: []byte(call), Length: int64(len(call))}})
	select {
	case got := <-out:
		if lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n"); len(lines) != 3 || !strings.Contains(lines[2], call) {
			t.Errorf("the first write holds %d lines, want the header, the text and the call:\n%s", len(lines), got)
		}
	case <-time.After(10 * time.Second): // fails the test rather than hang it
		t.Fatal("nothing written 10 s after the last event")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if end := <-out; !strings.Contains(end, `"ev":"end"`) {
		t.Fatalf("Close wrote %q", end)
	}
}

// BenchmarkScanFrame is the look for NaN, Infinity and __bytes__ in the
// two frames of a call.
func BenchmarkScanFrame(b *testing.B) {
	call := []byte(`{"type":"call","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","fn":"add","args":[123,1]}`)
	res := []byte(`{"type":"result","id":"3f2a9c7e5b1d4e6f8a0b2c4d6e8f0a1b","value":124}`)
	for b.Loop() {
		scanFrame(call)
		scanFrame(res)
	}
}
