package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/sandbox"
)

// wantInvalid checks that err is -32602 with a reason containing all of
// parts.
func wantInvalid(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("%s: %v, want -32602", what, err)
		return
	}
	for _, p := range parts {
		if !strings.Contains(string(rpcErr.Data), p) {
			t.Errorf("%s: %s, want it to say %q", what, rpcErr.Data, p)
		}
	}
}

// A server other clients reach reads host paths only under its roots, and
// not through links that lead out (issue 17, item 3: a client got
// /etc/shadow back through solution.path).
func TestHostPathsOnlyUnderTheRoots(t *testing.T) {
	problems, submissions, outside := t.TempDir(), t.TempDir(), t.TempDir()
	testfiles.Write(t, problems, map[string]string{"p/problem.json": `{"runtime_config":{"evaluator":{"command":"sh evaluate.sh"},` +
		`"solution":{"command":["sh","main.py"]}}}`,
		"p/evaluate.sh": bundle("0")["files"].(map[string]string)["evaluate.sh"]})
	testfiles.Write(t, submissions, map[string]string{"ok.sh": readySolution})
	testfiles.Write(t, outside, map[string]string{"secret": "root only", "q/problem.json": `{}`})
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(submissions, "link.sh"))
	os.Symlink(filepath.Join(outside, "q"), filepath.Join(problems, "linked"))

	svc := New(&Options{Runner: sandbox.NewPlain(), PathsNeedRoot: true, ProblemsRoot: problems, SubmissionsRoot: submissions})
	client, _ := connect(t, svc)
	ctx := context.Background()
	run := func(problem any, solution string) error {
		return client.Call(ctx, "judge.run", map[string]any{"problem": problem, "solution": map[string]any{"path": solution}}, nil)
	}
	wantInvalid(t, "/etc/shadow", run(bundle("0"), "/etc/shadow"), "solution.path", "--submissions-root")
	wantInvalid(t, "../ out of the root", run(bundle("0"), "../"+filepath.Base(outside)+"/secret"), "not inside")
	wantInvalid(t, "a link out of the root", run(bundle("0"), "link.sh"), "not inside")
	wantInvalid(t, "a problem outside", run(filepath.Join(outside, "q"), "ok.sh"), "--problems-root")
	wantInvalid(t, "a problem linked outside", run("linked", "ok.sh"), "not inside")
	var res struct{ Status string }
	if err := client.Call(ctx, "judge.run", map[string]any{"problem": "p", "solution": map[string]any{"path": "ok.sh"}}, &res); err != nil || res.Status != "Accepted" {
		t.Errorf("paths under the roots: %+v, %v", res, err)
	}

	noRoots, _ := connect(t, New(&Options{Runner: sandbox.NewPlain(), PathsNeedRoot: true}))
	err := noRoots.Call(ctx, "judge.run", map[string]any{"problem": bundle("0"), "solution": map[string]any{"path": filepath.Join(submissions, "ok.sh")}}, nil)
	wantInvalid(t, "a path without a root", err, "--submissions-root")
}

// The solution command is allow-listed like the evaluator's, and an
// evaluator gets the network only with the server's permission.
func TestProblemPolicy(t *testing.T) {
	client, _ := connect(t, newService())
	ctx := context.Background()
	problem := func(rc string) map[string]any {
		files := bundle("0")["files"].(map[string]string)
		files["problem.json"] = `{"runtime_config":` + rc + `}`
		return map[string]any{"files": files}
	}
	run := func(p map[string]any) error {
		return client.Call(ctx, "judge.run", map[string]any{"problem": p, "solution": map[string]any{"code": readySolution}}, nil)
	}
	wantInvalid(t, "a solution command off the list",
		run(problem(`{"evaluator":{"command":"sh evaluate.sh"},"solution":{"command":["/bin/cat","/etc/shadow"]}}`)),
		"runtime_config.solution.command", "/bin/cat")
	wantInvalid(t, "an evaluator with the network",
		run(problem(`{"evaluator":{"command":"sh evaluate.sh","network":{"enabled":true}},"solution":{"command":["sh","main.py"]}}`)),
		"network", "--allow-network")
	allowed, _ := connect(t, New(&Options{Runner: sandbox.NewPlain(), AllowNetwork: true}))
	var res struct{ Status string }
	p := problem(`{"evaluator":{"command":"sh evaluate.sh","network":{"enabled":true}},"solution":{"command":["sh","main.py"]}}`)
	if err := allowed.Call(ctx, "judge.run", map[string]any{"problem": p, "solution": map[string]any{"code": readySolution}}, &res); err != nil || res.Status != "Accepted" {
		t.Errorf("with --allow-network: %+v, %v", res, err)
	}
}

// A run belongs to the client that started it: another cannot cancel it,
// and a generated id cannot be guessed (issue 17, item 3: run-1, run-2...).
func TestRunBelongsToItsClient(t *testing.T) {
	svc := newService()
	owner, log := connect(t, svc)
	other, _ := connect(t, svc)
	ctx := context.Background()
	errc := make(chan error, 1)
	go func() {
		params := map[string]any{"problem": bundle("60"), "solution": map[string]any{"code": readySolution}}
		errc <- owner.Call(ctx, "judge.run", params, nil)
	}()
	log.waitPhases(t, 1)
	log.mu.Lock()
	id, _ := log.values[0]["submission_id"].(string)
	log.mu.Unlock()
	if !regexp.MustCompile(`^run-[0-9a-f]{32}$`).MatchString(id) {
		t.Errorf("generated submission id %q, want run- and 128 random bits", id)
	}
	var res CancelResult
	if err := other.Call(ctx, "judge.cancel", CancelParams{SubmissionID: id}, &res); err != nil || res.Cancelled {
		t.Fatalf("another client's judge.cancel = %+v, %v; want false", res, err)
	}
	if err := owner.Call(ctx, "judge.cancel", CancelParams{SubmissionID: id}, &res); err != nil || !res.Cancelled {
		t.Fatalf("the owner's judge.cancel = %+v, %v", res, err)
	}
	if err := <-errc; !errors.Is(err, &jsonrpc.Error{Code: jsonrpc.CodeCancelled}) {
		t.Errorf("the cancelled run: %v", err)
	}
}

// A FIFO under the roots is refused at once, not waited on: the server
// reads it itself (issue 27, item 5: a FIFO hung the run).
func TestHostPathFIFOIsRefused(t *testing.T) {
	problems, submissions := t.TempDir(), t.TempDir()
	testfiles.Write(t, problems, map[string]string{"p/evaluate.sh": "", "q/problem.json": bundle("0")["files"].(map[string]string)["problem.json"]})
	for _, fifo := range []string{filepath.Join(problems, "p", "problem.json"), filepath.Join(submissions, "fifo.sh")} {
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	svc := New(&Options{Runner: sandbox.NewPlain(), PathsNeedRoot: true, ProblemsRoot: problems, SubmissionsRoot: submissions})
	client, _ := connect(t, svc)
	for what, params := range map[string]map[string]any{
		"problem.json a FIFO": {"problem": "p", "solution": map[string]any{"code": readySolution}},
		"solution a FIFO":     {"problem": "q", "solution": map[string]any{"path": "fifo.sh"}},
	} {
		errc := make(chan error, 1)
		go func() { errc <- client.Call(context.Background(), "judge.run", params, nil) }()
		select {
		case err := <-errc:
			wantInvalid(t, what, err, "not a regular file")
		case <-time.After(10 * time.Second):
			for _, fifo := range []string{filepath.Join(problems, "p", "problem.json"), filepath.Join(submissions, "fifo.sh")} {
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
			}
			<-errc
			t.Fatalf("%s: judge.run waited for a writer", what)
		}
	}
}
