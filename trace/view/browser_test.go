package view

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/trace"
)

// browser finds a Chromium to drive. Without one the browser tests skip,
// unless TETHER_REQUIRE_BROWSER=1 (CI) makes that a failure.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TETHER_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium on PATH and TETHER_REQUIRE_BROWSER=1: install it (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH (apt-get install chromium; TETHER_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// pageSession is one headless Chromium with one tab, recording what the
// page asks of the network and what it reports as an error.
type pageSession struct {
	ctx      context.Context
	mu       sync.Mutex
	requests []string // URLs other than the page itself
	errors   []string // console errors and uncaught exceptions
}

func openBrowser(t *testing.T, exe string) *pageSession {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	s := &pageSession{}
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithListener(s.record))
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelTab(); cancelAlloc() })
	s.ctx = ctx
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("enabling the network domain: %v", err)
	}
	return s
}

// record runs in the tab's read loop: it must return fast and send nothing.
func (s *pageSession) record(ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && u != "about:blank" {
			s.requests = append(s.requests, u)
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			s.errors = append(s.errors, "console."+string(ev.Type))
		}
	case *runtime.EventExceptionThrown:
		msg := ev.ExceptionDetails.Text
		if e := ev.ExceptionDetails.Exception; e != nil {
			msg += " " + e.Description
		}
		s.errors = append(s.errors, "exception: "+msg)
	}
}

// load opens the page for m from a file URL and returns how long it took
// until the page said it was drawn.
func (s *pageSession) load(t *testing.T, m *Model) time.Duration {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Render(f, m); err != nil {
		t.Fatal(err)
	}
	f.Close()
	start := time.Now()
	u := url.URL{Scheme: "file", Path: path}
	if err := chromedp.Do(s.ctx, chromedp.Navigate(u.String()), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatalf("loading %s: %v (page errors: %v)", path, err, s.pageErrors())
	}
	return time.Since(start)
}

// screenshot saves the page as name, in TETHER_SCREENSHOT_DIR or the
// temporary directory, for a person to look at.
func (s *pageSession) screenshot(t *testing.T, name string) {
	t.Helper()
	shot, err := chromedp.Run(s.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(os.TempDir(), name)
	if dir := os.Getenv("TETHER_SCREENSHOT_DIR"); dir != "" {
		out = filepath.Join(dir, name)
	}
	if err := os.WriteFile(out, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", out)
}

func (s *pageSession) pageErrors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errors...)
}

func (s *pageSession) networkRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// shown is how many calls the table lists, as the page says it.
func (s *pageSession) shown(t *testing.T) int {
	t.Helper()
	n, err := chromedp.Run(s.ctx, chromedp.Evaluate[int](`+document.getElementById("call-count").dataset.shown`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBrowserRendersRun(t *testing.T) {
	s := openBrowser(t, browser(t))
	m := synthetic(1000)
	took := s.load(t, m)
	t.Logf("first render of %d calls: %v", len(m.Calls), took)

	verdict, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS("#verdict")))
	if err != nil {
		t.Fatal(err)
	}
	if verdict != "WrongAnswer" {
		t.Errorf("verdict shown = %q, want WrongAnswer", verdict)
	}
	if got := s.shown(t); got != len(m.Calls) {
		t.Errorf("table shows %d calls, want %d", got, len(m.Calls))
	}

	// Filtering by outcome narrows the table to exactly the timeouts.
	timeouts := 0
	for _, c := range m.Calls {
		if c.Outcome == OutcomeTimeout {
			timeouts++
		}
	}
	if err := chromedp.Do(s.ctx,
		chromedp.SetValue(chromedp.CSS("#filter-outcome"), "2"), // outcomes[2] is timeout
		chromedp.Evaluate[chromedp.Void](`document.getElementById("filter-outcome").dispatchEvent(new Event("change"))`),
	); err != nil {
		t.Fatal(err)
	}
	if got := s.shown(t); got != timeouts {
		t.Errorf("after filtering on timeout the table shows %d calls, want %d", got, timeouts)
	}

	// Clicking a row shows that call's arguments as pretty JSON. The first
	// timeout by start time is call c0, with arguments [0, {"k": "v0"}].
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS(`#rows-window .row`))); err != nil {
		t.Fatal(err)
	}
	args, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS("#detail .args")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(args, `"k": "v0"`) {
		t.Errorf("detail after clicking the first timeout shows arguments %q, want the pretty JSON of c0's", args)
	}

	// A click on the timeline's solution lane, in the middle of the run,
	// selects the call drawn there: another call than c0, answered by the
	// solution.
	xy, err := chromedp.Run(s.ctx, chromedp.Evaluate[[]float64](`(() => {
		const r = document.getElementById("timeline").getBoundingClientRect();
		return [r.left + 74 + (r.width - 74) / 2, r.top + 18 + 4 + 3];
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(s.ctx, chromedp.Click(chromedp.CSS("#zoom-reset")), chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		t.Fatal(err)
	}
	detail, err := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS("#detail")))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("detail after the timeline click: %.60q", detail)
	if strings.Contains(detail, "call: c0\n") || !strings.Contains(detail, "answered by: solution") {
		t.Errorf("after a click on the middle of the solution lane the detail shows:\n%s\nwant a call from the middle of the run", detail)
	}

	s.screenshot(t, "tether-trace-view.png")

	if errs := s.pageErrors(); len(errs) > 0 {
		t.Errorf("page reported errors: %v", errs)
	}
	if reqs := s.networkRequests(); len(reqs) > 0 {
		t.Errorf("page made network requests: %v", reqs)
	}
}

// The page stays usable at 100,000 calls; the time to first render is
// logged for bench/RESULTS.md, never asserted.
func TestBrowserRenders100kCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	s := openBrowser(t, browser(t))
	m := synthetic(100_000)
	took := s.load(t, m)
	t.Logf("first render of %d calls: %v", len(m.Calls), took)
	timing, _ := chromedp.Run(s.ctx, chromedp.Evaluate[string](`document.body.dataset.timing`))
	t.Logf("page steps (ms since navigation): %s", timing)
	if err := chromedp.Do(s.ctx,
		chromedp.SendKeys(chromedp.CSS("#search"), "v99999"),
		chromedp.WaitVisible(chromedp.CSS(`#call-count[data-shown="1"]`)),
	); err != nil {
		t.Fatalf("searching 100,000 calls: %v (page errors: %v)", err, s.pageErrors())
	}
	if errs := s.pageErrors(); len(errs) > 0 {
		t.Errorf("page reported errors: %v", errs)
	}
}

// runTrace judges solution.py against evaluate.py (no isolation: the page
// is what is tested) with a trace, and returns the trace read back.
func runTrace(t *testing.T, evaluator, solution string) (trace.Header, []*trace.Event) {
	t.Helper()
	testenv.Python3(t)
	dir := t.TempDir()
	testfiles.Write(t, dir, map[string]string{"problem.json": `{"title":"whole run"}`, "evaluate.py": evaluator, "solution.py": solution})
	p, err := judge.LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := judge.LoadSubmission(filepath.Join(dir, "solution.py"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	runner := sandbox.NewPlain()
	w := trace.NewWriter(&buf, trace.HeaderFor(p, sub, "s1", runner.Kind()), 0)
	res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: runner, SubmissionID: "s1", Observer: w})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Status != judge.Accepted {
		t.Fatalf("%v %s", res.Status, res.Details)
	}
	h, evs, err := trace.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return h, evs
}

// The page of a real run shows the whole run: the evaluator's output as
// it printed it, the solution's logs, each process with how it ended, a
// capability nested under the call it was made in, and the header's two
// times labelled. A compile step that failed is shown with its reason.
func TestBrowserShowsTheWholeRun(t *testing.T) {
	h, evs := runTrace(t, `from tether_sdk.evaluator import SolutionRunner, register_capability, result
print("checking the translation", flush=True)
register_capability("lookup", lambda word: {"hello": "bonjour"}.get(word))
runner = SolutionRunner()
said = runner.call("translate", "hello")
print("translate said", said, flush=True)
result.accept(100)
`, `from tether_sdk.solution import call_capability


def translate(word):
    print("looking up", word)
    return call_capability("lookup", word)
`)
	s := openBrowser(t, browser(t))
	s.load(t, FromTrace(h, evs))

	text := func(sel string) string {
		t.Helper()
		got, err := chromedp.Run(s.ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll(`+strconv.Quote(sel)+`)).map((e) => e.textContent).join("\n")`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	output := text("#output .out-line")
	for _, want := range []string{"evaluatorchecking the translation", "evaluatortranslate said bonjour", "solution stdoutlooking up hello"} {
		if !strings.Contains(output, want) {
			t.Errorf("output and logs lack %q:\n%s", want, output)
		}
	}
	evaluator, solution := text("#processes tr.process.evaluator"), text("#processes tr.process.solution")
	if !strings.Contains(evaluator, "exit status 0") {
		t.Errorf("the evaluator's process row %q does not say it exited with status 0", evaluator)
	}
	if !strings.Contains(solution, "solution #0") || !(strings.Contains(solution, "exit status") || strings.Contains(solution, "killed by")) {
		t.Errorf("the solution's process row %q does not say how it ended", solution)
	}

	// The capability's row comes right after its call's, indented.
	rows, err := chromedp.Run(s.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#rows-window .row")).map((r) => (r.classList.contains("nested") ? "nested " : "") + r.children[1].textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0] != "translate" || rows[1] != "nested lookup" {
		t.Errorf("table rows %q, want the call translate and, nested under it, the capability lookup", rows)
	}
	labels := text("#summary .summary-item .label")
	if !strings.Contains(labels, "run time") || !strings.Contains(labels, "calls' total") {
		t.Errorf("header times are labelled %q, want run time and calls' total", labels)
	}
	if errs := s.pageErrors(); len(errs) > 0 {
		t.Errorf("page reported errors: %v", errs)
	}
	s.screenshot(t, "tether-trace-view-whole-run.png")

	// A compile step that failed, from a trace of a C++ submission.
	h, evs, err = trace.ReadAll(strings.NewReader(`{"trace":3,"tether":"t","started":"2026-12-03T08:00:00Z","sides":{}}
{"t":500,"ev":"compile","us":400,"compile":{"language":"cpp","time_ms":380,"memory_kb":51200,"cached":false,"outcome":"CompileError","reason":"the compiler exited with status 1","message":"main.cpp:1:14: error: 'missing_name' was not declared"}}
{"t":600,"ev":"verdict","result":{"status":"CompileError","score":0}}
`))
	if err != nil {
		t.Fatal(err)
	}
	s.load(t, FromTrace(h, evs))
	compile := text("#processes tr.compile") + "\n" + text("#run-box .compile-message")
	for _, want := range []string{"compile cpp", "CompileError", "the compiler exited with status 1", "'missing_name' was not declared"} {
		if !strings.Contains(compile, want) {
			t.Errorf("the compile step shows %q, want %q in it", compile, want)
		}
	}
	if errs := s.pageErrors(); len(errs) > 0 {
		t.Errorf("page reported errors: %v", errs)
	}
}
