package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/supportpkg"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/natsq"
	"github.com/tether-dev/tether/worker/redisq"
)

// submitOptions are tether submit's flags.
type submitOptions struct {
	Broker       string // redis://..., nats://... or embedded; "": chooseBroker decides
	Wait         bool   // wait for the result and print it
	JSON         bool
	SubmissionID string // "": a random one
	RejudgeSeq   int64
	Timeout      time.Duration // how long --wait waits
	Language     string        // "": told by the file's extension
	brokerQueues
}

func newSubmitCmd() *cobra.Command {
	o := &submitOptions{}
	cmd := &cobra.Command{
		Use:   "submit PROBLEM_DIR SOLUTION_FILE",
		Short: "Queue a submission for tether worker (and wait for its verdict)",
		Long: `submit packs the problem folder as a support package (a noj-download://base64
URL inside the task), queues a task in Neuro OJ's format for the workers of
--broker and, with --wait, prints the result as tether judge does.

  tether worker                                                   # one terminal
  tether submit examples/aplusb examples/aplusb/solution.py --wait # another`,
		Args: exactArgs(2, "submit takes PROBLEM_DIR and SOLUTION_FILE", "tether submit examples/aplusb examples/aplusb/solution.py --wait"),
		RunE: func(cmd *cobra.Command, args []string) error { return runSubmit(cmd, o, args[0], args[1]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Broker, "broker", "", "queue: redis://HOST:PORT/DB, nats://HOST:PORT, or embedded (the local worker's; env REDIS_URL)")
	f.BoolVar(&o.Wait, "wait", false, "wait for the result and print it")
	f.BoolVar(&o.JSON, "json", false, "with --wait, print the result object as JSON")
	f.StringVar(&o.SubmissionID, "submission-id", "", "the task's submission_id (default a random one)")
	f.Int64Var(&o.RejudgeSeq, "rejudge-seq", 0, "the task's rejudge_seq")
	f.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "how long --wait waits")
	o.brokerQueues.addFlags(f)
	addLanguageFlag(f, &o.Language)
	return cmd
}

// buildTask makes a Neuro OJ task from a problem folder and a solution.
// l is the solution's language; nil tells it by the file's extension.
func buildTask(problemDir, solutionFile, id string, seq int64, l *lang.Language) ([]byte, error) {
	p, err := judge.LoadProblem(problemDir, nil)
	if err != nil {
		return nil, explainLoadError(err)
	}
	sub, err := judge.LoadSubmission(solutionFile)
	if err != nil {
		return nil, fmt.Errorf("%w (pass a readable solution file)", err)
	}
	if l == nil {
		if l, err = lang.Builtin().ForFile(solutionFile); err != nil {
			return nil, fmt.Errorf("%s: %w (or pass --language)", solutionFile, err)
		}
	}
	var pkg bytes.Buffer
	if _, err := supportpkg.Pack(p.Dir, &pkg); err != nil {
		return nil, fmt.Errorf("pack %s: %w", problemDir, err)
	}
	// runtime_config as written, with Neuro OJ's required fields filled
	// from the judge's defaults.
	var pj struct {
		RuntimeConfig map[string]json.RawMessage `json:"runtime_config"`
	}
	json.Unmarshal(p.Raw, &pj)
	side := func(name string) map[string]any {
		m := map[string]any{}
		if raw, ok := pj.RuntimeConfig[name]; ok {
			json.Unmarshal(raw, &m)
		}
		return m
	}
	ev, so := side("evaluator"), side("solution")
	rc := p.Runtime
	setDefault(ev, "image", "noj-evaluator-python")
	setDefault(ev, "command", strings.Join(rc.Evaluator.Command, " "))
	setDefault(ev, "time_limit_ms", rc.Evaluator.TimeLimitMs)
	setDefault(ev, "memory_limit_mb", rc.Evaluator.MemoryLimitMB)
	setDefault(so, "image", "noj-solution-python")
	setDefault(so, "call_timeout_ms", rc.Solution.CallTimeoutMs)
	setDefault(so, "memory_limit_mb", rc.Solution.MemoryLimitMB)
	full := map[string]any{}
	for k, v := range pj.RuntimeConfig {
		full[k] = v
	}
	full["evaluator"], full["solution"] = ev, so
	return json.Marshal(map[string]any{
		"submission_id": id, "problem_id": p.Title, "language": l.ID, "code": string(sub.Code),
		"download_url": supportpkg.Base64URL(pkg.Bytes()), "file_name": l.Source,
		"rejudge_seq": seq, "runtime_config": full,
	})
}

func setDefault(m map[string]any, key string, v any) {
	if _, ok := m[key]; !ok {
		m[key] = v
	}
}

func runSubmit(cmd *cobra.Command, o *submitOptions, problemDir, solutionFile string) error {
	id := o.SubmissionID
	if id == "" {
		b := make([]byte, 8)
		rand.Read(b)
		id = "tether-" + hex.EncodeToString(b)
	}
	seq := o.RejudgeSeq
	var l *lang.Language
	if o.Language != "" {
		var err error
		if l, err = lang.Builtin().Lookup(o.Language); err != nil {
			return fmt.Errorf("--language: %w", err)
		}
	}
	task, err := buildTask(problemDir, solutionFile, id, seq, l)
	if err != nil {
		return err
	}
	if err := applyEnv(cmd, queueEnv); err != nil {
		return err
	}
	wait, timeout := o.Wait, o.Timeout
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var result []byte
	u := brokerURL(o.Broker)
	switch {
	case strings.HasPrefix(u, "redis://") || strings.HasPrefix(u, "rediss://"):
		result, err = submitRedis(ctx, &o.brokerQueues, u, task, id, wait, timeout)
	case u == "embedded" || strings.HasPrefix(u, "nats://") || strings.HasPrefix(u, "tls://"):
		result, err = submitNATS(ctx, &o.brokerQueues, u, task, id, seq, wait, timeout)
	default:
		return fmt.Errorf("--broker %q: want redis://HOST:PORT/DB, nats://HOST:PORT or embedded", u)
	}
	if err != nil {
		return err
	}
	// Whatever the queue, a result is printed only if it is this one's.
	if got, ok := worker.ResultSubmissionID(result); wait && (!ok || got != id) {
		return fmt.Errorf("the result received is for submission_id %q, not %q: another submission's result was on this one's queue; nothing printed", got, id)
	}
	out := cmd.OutOrStdout()
	if !wait {
		fmt.Fprintf(out, "queued %s\n", id)
		return nil
	}
	return printQueuedResult(out, result, o.JSON)
}

func submitRedis(ctx context.Context, q *brokerQueues, u string, task []byte, id string, wait bool, timeout time.Duration) ([]byte, error) {
	queue, results := q.Queue, q.ResultQueue
	c, err := newRedis(u)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.LPush(ctx, queue, task).Err(); err != nil {
		return nil, fmt.Errorf("cannot queue at %s: %v", redisq.Redacted(u), err)
	}
	if !wait {
		return nil, nil
	}
	// The result list is Neuro OJ's core's: take only this submission's.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		items, err := c.LRange(ctx, results, 0, -1).Result()
		if err == nil {
			if raw, ok := redisResultOf(items, id); ok {
				c.LRem(ctx, results, 1, raw)
				return []byte(raw), nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no result for %s within %v (is a tether worker on %s running?)", id, timeout, redisq.Redacted(u))
		case <-tick.C:
		}
	}
}

func submitNATS(ctx context.Context, q *brokerQueues, u string, task []byte, id string, seq int64, wait bool, timeout time.Duration) ([]byte, error) {
	b, u, err := connectNATS(ctx, q, u)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if err := b.Enqueue(ctx, task, id, seq); err != nil {
		return nil, fmt.Errorf("cannot queue at %s: %v", natsq.Redacted(u), err)
	}
	if !wait {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The wait outlives a restart of the broker or the worker: the
	// connection reconnects and the result, kept by the broker, is read
	// whenever it comes.
	res, err := b.WaitResult(ctx, id, seq)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("no result for %s within %v (is tether worker running? the result can still be fetched later: tether result %s)", id, timeout, id)
	}
	return res, err
}

// printQueuedResult prints a result from a queue as indented JSON or as
// a summary.
func printQueuedResult(w io.Writer, raw []byte, asJSON bool) error {
	if !asJSON {
		return printWorkerResult(w, raw)
	}
	var buf bytes.Buffer
	json.Indent(&buf, raw, "", "  ")
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

func printWorkerResult(w io.Writer, raw []byte) error {
	var r worker.Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("the result does not parse: %v", err)
	}
	fmt.Fprintf(w, "verdict:  %s\n", r.Status)
	fmt.Fprintf(w, "score:    %s\n", formatScore(r.Score))
	fmt.Fprintf(w, "time:     %d ms\n", r.TimeMs)
	fmt.Fprintf(w, "memory:   %d KiB\n", r.MemoryKB)
	if d := string(r.Details); d != "null" && d != "{}" && d != "" {
		fmt.Fprintf(w, "details:  %s\n", d)
	}
	if r.Output != "" {
		fmt.Fprintf(w, "evaluator output (tail):\n%s\n", tailLines(r.Output, 20))
	}
	return nil
}
