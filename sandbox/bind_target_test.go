package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Bind with a Target works under the none runner by rewriting Dir and the
// arguments under it: Neuro OJ's "python3 /workspace/evaluate.py" runs in
// the problem folder.
func TestPlainBindTargetMapsDirAndArgs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.sh"), []byte("pwd; echo \"$1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPlain(t, Spec{
		Args:  []string{"sh", "/workspace/hello.sh", "/workspacefoo"},
		Dir:   "/workspace",
		Binds: []Bind{{Path: dir, Target: "/workspace"}},
	})
	out, _ := io.ReadAll(p.Stdout())
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	// A path that only shares the prefix's text is left alone.
	if want := dir + "\n/workspacefoo\n"; string(out) != want {
		t.Fatalf("output %q, want %q", out, want)
	}
}

func TestHostPathsLeavesSpecWithoutTargetsAlone(t *testing.T) {
	spec := Spec{Args: []string{"python3", "/workspace/x.py"}, Dir: "/workspace", Binds: []Bind{{Path: "/srv/p"}}}
	got := hostPaths(spec)
	if strings.Join(got.Args, " ") != "python3 /workspace/x.py" || got.Dir != "/workspace" {
		t.Fatalf("hostPaths changed a spec without targets: %+v", got)
	}
}
