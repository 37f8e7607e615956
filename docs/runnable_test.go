package docs_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runnableFence opens a shell block that the docs promise works as written.
// Each such block runs, from the repository root, under bash -euo pipefail:
// a block states what it checks (a grep of the output, a test -f of a
// written file), so its exit status says whether the text is true.
const runnableFence = "```sh runnable"

type shellBlock struct {
	file string
	line int
	code string
}

func runnableBlocks(t *testing.T, file string) []shellBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []shellBlock
	var cur *shellBlock
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == runnableFence:
			cur = &shellBlock{file: file, line: i + 1}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: runnable block never closed", file, cur.line)
	}
	return blocks
}

func TestRunnableDocBlocks(t *testing.T) {
	files := []string{"README.md"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, filepath.ToSlash(filepath.Join("docs", path)))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Glob(filepath.Join(repoRoot, "examples", "*", "README.md"))
	for _, e := range examples {
		rel, _ := filepath.Rel(repoRoot, e)
		files = append(files, filepath.ToSlash(rel))
	}
	var blocks []shellBlock
	for _, f := range files {
		blocks = append(blocks, runnableBlocks(t, f)...)
	}
	if len(runnableBlocks(t, "README.md")) == 0 {
		t.Fatal("README.md has no runnable block: its first commands must stay tested")
	}
	for _, b := range blocks {
		t.Run(b.file+":"+strconv.Itoa(b.line), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.code)
			cmd.Dir = repoRoot
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s:%d: the runnable block failed (%v):\n%s\noutput:\n%s", b.file, b.line, err, b.code, out)
			}
		})
	}
}
