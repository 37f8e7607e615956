package schemas

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every problem.json in the repository (examples, test data, templates)
// is valid against the schema that tether problem check enforces.
func TestEveryProblemJSONInTheRepositoryIsValid(t *testing.T) {
	n := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || strings.HasPrefix(d.Name(), ".venv") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() != "problem.json" || d.IsDir() {
			return nil
		}
		if strings.Contains(filepath.ToSlash(path), "/testdata/broken/") {
			return nil // broken on purpose, for the checker's own tests
		}
		n++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		issues, err := Check(Problem, data)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range issues {
			t.Errorf("%s: %s", path, i)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("found only %d problem.json files; is the walk rooted at the repository?", n)
	}
}

func TestProblemIssuesNameTheFieldInWords(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"runtime_config": {"solution": {"call_timout_ms": 100}}}`,
			`runtime_config.solution.call_timout_ms: unknown field; did you mean "call_timeout_ms"?`},
		{`{"titel": "x"}`, `titel: unknown field; did you mean "title"?`},
		{`{"runtime_config": {"solution": {"zzz_qqq_www": 1}}}`,
			`runtime_config.solution.zzz_qqq_www: unknown field; known fields here: call_timeout_ms, command, compile, cpu_time_limit_ms`},
		{`{"runtime_config": {"solution": {"call_timeout_ms": "2000"}}}`,
			`runtime_config.solution.call_timeout_ms: want an integer, got string`},
		{`{"runtime_config": {"evaluator": {"time_limit_ms": -1}}}`,
			`runtime_config.evaluator.time_limit_ms: must be at least 0, got -1`},
		{`{"runtime_config": {"solution": {"on_call_timeout": "retry"}}}`,
			`runtime_config.solution.on_call_timeout: want one of "restart", "continue", got "retry"`},
		{`{"runtime_config": {"evaluator": {"command": 5}}}`,
			`runtime_config.evaluator.command: want a string or an array, got number`},
		{`{"runtime_config": {"evaluator": {"command": ""}}}`,
			`runtime_config.evaluator.command: must not be empty`},
		{`{"runtime_config": {"evaluator": {"network": {"enabled": "yes"}}}}`,
			`runtime_config.evaluator.network.enabled: want true or false, got string`},
		{`{"format_version": 2}`, `format_version: want 1, got 2`},
		{"{\n  \"title\": \"x\",\n}", `not valid JSON: line 3, column 1`},
	} {
		issues, err := Check(Problem, []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(issues) == 0 {
			t.Errorf("%s: valid, want %q", tc.doc, tc.want)
			continue
		}
		if got := issues[0].String(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.doc, got, tc.want)
		}
		if len(issues) > 1 {
			t.Errorf("%s: %d issues %v, want one", tc.doc, len(issues), issues)
		}
	}
}

func TestFrameSchema(t *testing.T) {
	for _, tc := range []struct {
		frame string
		valid bool
	}{
		{`{"type":"ready"}`, true},
		{`{"type":"call","id":"c1","fn":"add","args":[1,{"__bytes__":"AAE="}],"timeout_ms":100}`, true},
		{`{"type":"result","id":"c1","value":{"a":[1,2.5,null]}}`, true},
		{`{"type":"error","id":"c1","code":"Exception","message":"boom","trace":"Traceback"}`, true},
		{`{"type":"capability","id":"k1","name":"lookup","args":[]}`, true},
		{`{"type":"cap_reg","name":"lookup","timeout_ms":0}`, true},
		{`{"type":"log","stream":"stdout","data":"hi\n"}`, true},
		{`{"type":"shutdown"}`, true},
		{`{"type":"call","id":"","fn":"add","args":[]}`, false},
		{`{"type":"call","id":"c1","fn":"add"}`, false},
		{`{"type":"result","id":7,"value":1}`, false},
		{`{"type":"hello"}`, false},
	} {
		issues, err := Check(Frame, []byte(tc.frame))
		if err != nil {
			t.Fatal(err)
		}
		if (len(issues) == 0) != tc.valid {
			t.Errorf("%s: issues %v, want valid=%v", tc.frame, issues, tc.valid)
		}
	}
}

func TestResultSchemaRefusesWhatTheJudgeNeverWrites(t *testing.T) {
	ok := `{"submission_id":"","status":"Accepted","score":10000,"output":"","details":{},"time_ms":1,"memory_kb":1,` +
		`"rejudge_seq":0,"cpu_ms":1,"calls":{"count":1,"timeouts":0,"restarts":0,"capability_timeouts":0},` +
		`"logs":{"kept":[],"dropped":0},"sandbox":"none","exit":{"evaluator":null,"solution":{"signal":"SIGKILL","killed_by_judge":true}}}`
	if issues, err := Check(Result, []byte(ok)); err != nil || issues != nil {
		t.Fatalf("a valid result: %v %v", issues, err)
	}
	for bad, want := range map[string]string{
		strings.Replace(ok, `"score":10000`, `"score":1e17`, 1):          "score: must be at most 9007199254740992",
		strings.Replace(ok, `"Accepted"`, `"Not OK"`, 1):                 "status:",
		strings.Replace(ok, `"time_ms":1,`, ``, 1):                       "time_ms: missing",
		strings.Replace(ok, `"sandbox":"none"`, `"sandbox":"docker"`, 1): "sandbox: want one of",
	} {
		issues, err := Check(Result, []byte(bad))
		if err != nil || len(issues) == 0 || !strings.HasPrefix(issues[0].String(), want) {
			t.Errorf("got %v (%v), want %q", issues, err, want)
		}
	}
}
