package redisq

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// No two tasks' kept results share a file: ids that were the same once
// unsafe bytes were replaced, ids of any length, and the same task kept
// twice each get a file of their own, named within the file system's
// 255 bytes, holding their own result.
func TestKeptResultsNeverShareAFile(t *testing.T) {
	f, err := openFallback(t.TempDir(), 1<<20, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 300)
	ids := []string{"a/b", "a_b", "a:b", "a\x00b", "", "../../etc", long, long[:299] + "y", strings.Repeat("é", 200), "a_b"}
	seen := map[string]bool{}
	for i, id := range ids {
		result, _ := json.Marshal(map[string]any{"submission_id": id, "status": "Accepted", "rejudge_seq": 2})
		name, err := f.keep(result, []byte(fmt.Sprintf("task %d", i)))
		if err != nil {
			t.Fatalf("keep %q: %v", id, err)
		}
		if seen[name] {
			t.Fatalf("%q's result went to %s, which another result has", id, name)
		}
		seen[name] = true
		if filepath.Dir(name) != f.dir || len(filepath.Base(name)) > 255 {
			t.Fatalf("%q's result is at %s", id, name)
		}
	}
	names := f.files()
	if len(names) != len(ids) {
		t.Fatalf("%d kept files for %d results", len(names), len(ids))
	}
	tasks := map[string]bool{}
	for _, name := range names {
		k, err := f.read(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tasks[*k.Task] = true
		fi, _ := os.Stat(name)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", name, fi.Mode().Perm())
		}
	}
	if len(tasks) != len(ids) {
		t.Fatalf("the kept files hold %d tasks, want %d", len(tasks), len(ids))
	}
}

// A fallback-results folder that became readable by others is not
// replayed from until it is private again.
func TestNoReplayFromAFolderOthersMayRead(t *testing.T) {
	f, err := openFallback(t.TempDir(), 1<<20, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.checkDir(); err != nil {
		t.Fatalf("a fresh folder: %v", err)
	}
	if err := os.Chmod(f.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.checkDir(); err == nil || !strings.Contains(err.Error(), "chmod 0700") {
		t.Fatalf("mode 0755: %v, want an error with the fix", err)
	}
}
