package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sandbox"
)

// jsonText is s as it reads inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// runBundle sends judge.run with an inline bundle made of bundle("0")'s
// files plus extra, and returns its error.
func runBundle(t *testing.T, svc *Service, extra map[string]string) error {
	t.Helper()
	files := map[string]string{}
	for name, body := range bundle("0")["files"].(map[string]string) {
		files[name] = body
	}
	for name, body := range extra {
		files[name] = body
	}
	client, _ := connect(t, svc)
	params := map[string]any{"problem": map[string]any{"files": files}, "solution": map[string]any{"code": readySolution}}
	return client.Call(context.Background(), "judge.run", params, nil)
}

// Every inline name that is not a plain relative file path is refused,
// naming the file (issue 27, item 4: "." and "a/.." sent the folder
// creation up past "/" until the stack overflowed and took the whole
// server down).
func TestBundleRefusesNamesThatAreNotPlainFilePaths(t *testing.T) {
	svc := newService()
	for _, name := range []string{".", "a/..", "..", "../x", "/etc/x", "a/", "a//b", "./a", "a/./b", "", "a\x00b",
		strings.Repeat("n", 256)} {
		err := runBundle(t, svc, map[string]string{name: "x"})
		wantInvalid(t, fmt.Sprintf("name %q", name), err, jsonText(fmt.Sprintf("problem.files[%q]", name)))
	}
	// The server is still there, and a plain nested name still works.
	var res struct{ Status string }
	client, _ := connect(t, svc)
	files := bundle("0")["files"].(map[string]string)
	files["data/deep/1.txt"] = "1"
	files[strings.Repeat("n", 255)] = "x"
	params := map[string]any{"problem": map[string]any{"files": files}, "solution": map[string]any{"code": readySolution}}
	if err := client.Call(context.Background(), "judge.run", params, &res); err != nil || res.Status != "Accepted" {
		t.Fatalf("a plain bundle after the refusals: %+v, %v", res, err)
	}
}

func TestBundleCapsItsFileCount(t *testing.T) {
	extra := map[string]string{}
	for i := range maxBundleFiles {
		extra[fmt.Sprintf("data/%d", i)] = ""
	}
	wantInvalid(t, "too many files", runBundle(t, newService(), extra), "problem.files", "cap")
}

// A bundle file that cannot be written is an error naming it, not a run of
// what happened to be written (issue 27, item 15: the write and chmod
// errors went to a shadowed err; "d" and "d/x" both "succeeded").
func TestBundleFileThatCannotBeWrittenIsAnError(t *testing.T) {
	for _, extra := range []map[string]string{
		{"d": "file", "d/x": "file under it"},
		{"d": "file", "d/e/x": "deeper", "d-e": "sorts between"},
	} {
		wantInvalid(t, fmt.Sprint(extra), runBundle(t, New(nil), extra), jsonText(`problem.files["d"]`), "folder")
	}
}

// The files of a bundle are written whole and readable by the sandbox
// user, whatever the umask.
func TestWriteBundle(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"a/b/c.txt": "abc", "top": "t"}
	names, err := bundleNames(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeBundle(dir, names, files); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		got, err := os.ReadFile(dir + "/" + name)
		if err != nil || string(got) != body {
			t.Errorf("%s: %q, %v", name, got, err)
		}
		if info, err := os.Stat(dir + "/" + name); err != nil || info.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, %v; want 0644", name, info.Mode(), err)
		}
	}
	if info, err := os.Stat(dir + "/a/b"); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("a/b: %v, %v; want 0755", info.Mode(), err)
	}
	// A name that leads out through a link already there stays inside.
	if err := os.Symlink(t.TempDir(), dir+"/out"); err != nil {
		t.Fatal(err)
	}
	if err := writeBundle(dir, []string{"out/x"}, map[string]string{"out/x": ""}); err == nil {
		t.Error("writing through a link out of the bundle: no error")
	}
}

// An inline bundle's runtime_config.lm is the configuration itself: the
// bundle has no folder on the server for a path to name (issue 27, item 5).
func TestBundleLMIsInlineOrNothing(t *testing.T) {
	problem := `{"runtime_config":{"evaluator":{"command":"sh evaluate.sh"},"solution":{"command":["sh","main.py"]},"lm":"lm.json"}}`
	err := runBundle(t, New(&Options{Runner: sandbox.NewPlain()}), map[string]string{"problem.json": problem,
		"lm.json": `{"backends":{"e":{"type":"echo"}}}`})
	wantInvalid(t, "lm path in a bundle", err, "runtime_config.lm", "inline")
}
