package redisq_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/nojcore"
	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
	"github.com/tether-dev/tether/worker"
	"github.com/tether-dev/tether/worker/internal/workertest"
	"github.com/tether-dev/tether/worker/redisq"
)

// langTask is a task of the judge's C++ test problem (add on small
// numbers) in language with file_name.
func langTask(id, language, fileName, code string) []byte {
	b, _ := json.Marshal(map[string]any{
		"submission_id": id, "problem_id": 7, "language": language, "code": code,
		"download_url": "noj-download://base64/?content=unused&checksum_sha256=00", "file_name": fileName,
		"runtime_config": map[string]any{
			"evaluator": map[string]any{"image": "noj-evaluator-python", "command": "python3 /workspace/evaluate.py",
				"time_limit_ms": 20000, "memory_limit_mb": 256},
			"solution": map[string]any{"image": "noj-solution-python", "call_timeout_ms": 2000, "memory_limit_mb": 256,
				// Room for a busy machine (tests of other packages compile at once).
				"compile": map[string]any{"time_limit_ms": 180000, "cpu_time_limit_ms": 120000}},
		},
	})
	return b
}

// Neuro OJ's tasks name their language (python3, cpp, ...) and carry the
// submitter's file_name unchecked: each is judged in its language, and a
// file_name that is a path changes nothing.
func TestTasksInTheirLanguages(t *testing.T) {
	testenv.Python3(t)
	f := newFixture(t)
	b := f.open(redisq.Options{})
	defer b.Close()
	ctx := context.Background()
	for _, tool := range []string{"g++", "gcc", "node"} {
		testenv.Toolchain(t, tool)
	}
	cAdd := "#include \"tether.h\"\ntether_value *add(const tether_value *args) {\n" +
		"  return tether_int(tether_as_int(tether_at(args, 0)) + tether_as_int(tether_at(args, 1)));\n}\nTETHER_EXPORT(add)\n"
	cppAdd := "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + b; }\nTETHER_EXPORT(add);\n"
	tasks := []struct {
		id, language, fileName, code, want string
	}{
		{"py", "python3", "main.py", goodCode, "Accepted"},
		{"py-wrong", "python", "main.py", "def add(a, b):\n    return a - b\n", "WrongAnswer"},
		{"cpp", "cpp", "main.cpp", cppAdd, "Accepted"},
		{"cpp-path", "cpp", "../../../../etc/passwd", cppAdd, "Accepted"},
		{"cpp-wrong", "cpp", "main.cpp", "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a * b; }\nTETHER_EXPORT(add);\n", "WrongAnswer"},
		{"cpp-ce", "cpp", "main.cpp", "#include \"tether.hpp\"\nlong long add(long long a, long long b) { return a + }\n", "CompileError"},
		{"cobol", "cobol", "main.cob", "x", "CompileError"},
		{"c", "c", "main.c", cAdd, "Accepted"},
		{"c-ce", "c", "main.c", "int add(void) { return }\n", "CompileError"},
		{"c-path", "c", "../../x.cpp", cAdd, "Accepted"},
		{"c-re", "c", "main.c", "#include \"tether.h\"\n#include <stdlib.h>\ntether_value *add(const tether_value *args) { (void)args; abort(); }\nTETHER_EXPORT(add)\n", "RuntimeError"},
		{"js", "javascript", "main.js", "module.exports = { add: (a, b) => a + b };\n", "Accepted"},
		{"js-wrong", "javascript", "main.js", "module.exports = { add: (a, b) => a - b };\n", "WrongAnswer"},
		{"js-path", "javascript", "../../x.cpp", "module.exports = { add: (a, b) => a + b };\n", "Accepted"},
		{"js-re", "javascript", "main.js", "module.exports = { add: () => null.boom() };\n", "RuntimeError"},
		{"py-re", "python3", "../../x.cpp", "def add(a, b):\n    return [][a]\n", "RuntimeError"},
	}
	for _, tk := range tasks {
		if err := nojcore.Produce(ctx, f.client, langTask(tk.id, tk.language, tk.fileName, tk.code), 100); err != nil {
			t.Fatal(err)
		}
	}
	// One build cache, as a worker has: the same source under another
	// file_name compiles once.
	cache, err := lang.OpenCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	j := &worker.Judger{Runner: sandboxtest.Isolating(t), Packages: workertest.CopyFolder("../../judge/testdata/lang"), WorkDir: f.work, BuildCache: cache}
	stop := f.startWorker(b, 1, j.Judge)
	core := &nojcore.Consumer{C: f.client}
	eventually(t, 240*time.Second, "every result", func() bool { core.Drain(ctx); return core.Count() == len(tasks) })
	stop()
	for _, tk := range tasks {
		r := core.Applied[tk.id]
		if r.Status != tk.want {
			t.Errorf("%s (%s): %s, want %s; details %s output %q", tk.id, tk.language, r.Status, tk.want, r.Details, r.Output)
		}
	}
	if out := core.Applied["cpp-ce"].Output; !strings.Contains(out, "main.cpp:2:") {
		t.Errorf("the compile error's output lacks the compiler's line: %q", out)
	}
	var d map[string]string
	json.Unmarshal(core.Applied["cobol"].Details, &d)
	if !strings.Contains(d["message"], "cpp") || !strings.Contains(d["message"], "javascript") {
		t.Errorf("an unknown language's message names no known ones: %q", d["message"])
	}
}
