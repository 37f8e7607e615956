package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// synthetic is a run of n calls to two functions, every 7th an error, every
// 11th a timeout, with a capability inside every 5th call, logs, a restart
// (three processes) and one LM request.
func synthetic(n int) *Model {
	score := int64(5000)
	m := &Model{Header: Header{
		Problem: "aplusb", SubmissionID: "sub-1", Started: "2026-12-03T08:00:00Z", Tether: "test",
		Sandbox: "linux", Verdict: "WrongAnswer", Score: &score, TimeMs: 1234, MemoryKB: 20480,
		Limits: []Limit{{"call timeout", "5000 ms"}, {"time limit", "30000 ms"}},
	}}
	t := int64(0)
	for i := 0; i < n; i++ {
		fn := "solve"
		if i%3 == 0 {
			fn = "check"
		}
		out := OutcomeOK
		switch {
		case i%11 == 0:
			out = OutcomeTimeout
		case i%7 == 0:
			out = OutcomeError
		}
		parent := len(m.Calls)
		m.Calls = append(m.Calls, Call{
			ID: fmt.Sprint("c", i), Fn: fn, Side: SideSolution, StartUs: t, EndUs: t + 40 + int64(i%13),
			Outcome: out, Parent: -1, Args: fmt.Sprintf(`[%d,{"k":"v%d"}]`, i, i), Answer: fmt.Sprint(i * 2),
		})
		if i%5 == 0 {
			m.Calls = append(m.Calls, Call{
				ID: fmt.Sprint("cap", i), Fn: "lookup", Side: SideEvaluator, StartUs: t + 5, EndUs: t + 20,
				Outcome: OutcomeOK, Parent: parent, Args: `["key"]`, Answer: `"value"`,
			})
		}
		if i%50 == 0 {
			m.Logs = append(m.Logs, Log{AtUs: t + 3, Side: SideSolution, Stream: "stdout", Bytes: 12, Text: fmt.Sprint("solving ", i)})
		}
		t += 60
	}
	m.Restarts = []int64{t / 2}
	m.Processes = []Process{{Side: SideEvaluator, StartUs: 0, EndUs: t, Exit: "exit status 0"},
		{Side: SideSolution, StartUs: 1, EndUs: t / 2, Exit: "killed by SIGKILL (the judge)"},
		{Side: SideSolution, N: 1, StartUs: t / 2, EndUs: t, Exit: "exit status 0"}}
	m.LM = []LMRequest{{StartUs: 10, EndUs: 900, Model: "echo", Depth: 1, PromptBytes: 5, CompletionBytes: 9, PromptTokens: 2, CompletionTokens: 3}}
	return m
}

func render(t testing.TB, m *Model) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The page carries everything it needs: no element loads anything from a
// URL, and the data decodes back to the calls it was made from.
func TestRenderSelfContained(t *testing.T) {
	html := render(t, synthetic(100))
	for _, re := range []string{`<script[^>]+src=`, `<link[^>]+href=`, `<img[^>]+src="?http`, `url\(\s*['"]?http`, `@import`, `https?://`} {
		if loc := regexp.MustCompile(re).FindStringIndex(html); loc != nil {
			t.Errorf("page matches %s at %q", re, html[loc[0]:min(len(html), loc[1]+40)])
		}
	}
	data := extractData(t, html)
	var p page
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		t.Fatal(err)
	}
	if got := len(p.Calls.ID); got != 120 {
		t.Errorf("calls in page data = %d, want 120 (100 calls + 20 capabilities)", got)
	}
	if p.Header.Verdict != "WrongAnswer" || p.Calls.Parent[1] != 0 || p.Fns[p.Calls.Fn[1]] != "lookup" {
		t.Errorf("page data lost the header or a capability's parent: %+v", p.Header)
	}
}

// A string of the run cannot end the script element that carries the data,
// nor inject markup through the title.
func TestRenderEscapes(t *testing.T) {
	m := synthetic(1)
	m.Header.Problem = `</title><script>alert(1)</script>`
	m.Calls[0].Args = `["</script><script>alert(2)</script>"]`
	html := render(t, m)
	if strings.Count(html, "<script") != 2 || strings.Contains(html, "alert(1)</script>") {
		t.Errorf("a run's strings made markup:\n%s", html[:min(len(html), 600)])
	}
	var p page
	if err := json.Unmarshal([]byte(extractData(t, html)), &p); err != nil || p.Calls.Args[0] != m.Calls[0].Args {
		t.Errorf("escaped args did not round-trip: %v %q", err, p.Calls.Args)
	}
}

func TestRenderRejectsBadModel(t *testing.T) {
	for name, mutate := range map[string]func(*Model){
		"outcome": func(m *Model) { m.Calls[0].Outcome = "fine" },
		"parent":  func(m *Model) { m.Calls[0].Parent = 99 },
		"self":    func(m *Model) { m.Calls[0].Parent = 0 },
	} {
		m := synthetic(2)
		mutate(m)
		if err := Render(&bytes.Buffer{}, m); err == nil {
			t.Errorf("%s: Render accepted a bad model", name)
		}
	}
}

// 100,000 calls fit the size budget of a page that can be attached to a ticket.
func TestRenderSizeAt100kCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	html := render(t, synthetic(100_000))
	if len(html) > 30<<20 {
		t.Errorf("page for 100,000 calls is %d MiB, want <= 30 MiB", len(html)>>20)
	}
	t.Logf("page for 100,000 calls (+20,000 capabilities): %.1f MiB", float64(len(html))/(1<<20))
}

func BenchmarkRender100kCalls(b *testing.B) {
	m := synthetic(100_000)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := Render(&buf, m); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size)/(1<<20), "MiB/page")
}

func extractData(t *testing.T, page string) string {
	t.Helper()
	const open = `<script type="application/json" id="run-data">`
	i := strings.Index(page, open)
	j := strings.Index(page[i+len(open):], "</script>")
	if i < 0 || j < 0 {
		t.Fatal("no run-data element in the page")
	}
	return page[i+len(open) : i+len(open)+j]
}
