package redisq

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// fallbackDir holds results Redis would not take:
// WORK_DIR/fallback-results/result-<id>-seq<N>.json. A file holds the
// result, or {"result": …, "task": "<the task as queued>"} so that a replay
// can also take the task out of :processing.
type fallbackDir struct {
	dir       string
	log       *slog.Logger
	onPending func(int)
	mu        sync.Mutex // one replay at a time
}

type keptResult struct {
	Result json.RawMessage `json:"result"`
	Task   *string         `json:"task,omitempty"`
}

func openFallback(workDir string, log *slog.Logger, onPending func(int)) (*fallbackDir, error) {
	dir := filepath.Join(workDir, "fallback-results")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("WORK_DIR %s: cannot make fallback-results: %v", workDir, err)
	}
	return &fallbackDir{dir: dir, log: log, onPending: onPending}, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// keep writes result (and the task it answers) to a new file.
func (f *fallbackDir) keep(result, task []byte) (string, error) {
	var head struct {
		SubmissionID string `json:"submission_id"`
		RejudgeSeq   int64  `json:"rejudge_seq"`
	}
	json.Unmarshal(result, &head)
	id := unsafeName.ReplaceAllString(head.SubmissionID, "_")
	raw := string(task)
	body, err := json.Marshal(keptResult{Result: result, Task: &raw})
	if err != nil {
		return "", err
	}
	name := filepath.Join(f.dir, fmt.Sprintf("result-%s-seq%d.json", id, head.RejudgeSeq))
	tmp, err := os.CreateTemp(f.dir, ".tmp-result-*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(body)
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), name)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", werr
	}
	f.count()
	return name, nil
}

func (f *fallbackDir) files() []string {
	names, _ := filepath.Glob(filepath.Join(f.dir, "result-*.json"))
	return names
}

func (f *fallbackDir) count() {
	if f.onPending != nil {
		f.onPending(len(f.files()))
	}
}

// replay pushes every kept result; a pushed one's file is removed and its
// task LREMed; a file that does not parse is renamed *.dead.
func (f *fallbackDir) replay(ctx context.Context, b *Broker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.count()
	for _, name := range f.files() {
		body, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		k, ok := parseKept(body)
		if !ok {
			f.log.Error("kept result does not parse; renamed .dead", "file", name)
			os.Rename(name, name+".dead")
			continue
		}
		if err := b.client.LPush(ctx, b.opts.ResultQueue, []byte(k.Result)).Err(); err != nil {
			f.log.Warn("replay of a kept result failed; will retry", "file", name, "error", err.Error())
			return // Redis is still away: try the rest next time
		}
		if k.Task != nil {
			if err := b.ack(ctx, []byte(*k.Task)); err != nil {
				f.log.Warn("replayed result's task stays in processing", "file", name, "error", err.Error())
			}
		}
		os.Remove(name)
		f.log.Info("replayed a kept result", "file", name)
	}
}

// parseKept reads a kept file: the envelope, or a bare result object (as
// another worker may have left).
func parseKept(body []byte) (keptResult, bool) {
	var k keptResult
	if err := json.Unmarshal(body, &k); err == nil && len(k.Result) > 0 && strings.HasPrefix(string(k.Result), "{") {
		return k, true
	}
	var bare map[string]json.RawMessage
	if err := json.Unmarshal(body, &bare); err != nil || bare["submission_id"] == nil {
		return keptResult{}, false
	}
	return keptResult{Result: body}, true
}
