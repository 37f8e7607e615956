package judge

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/sandbox"
)

// otherUserRunner is a runner whose programs run as a user that owns
// nothing here, so only the "other" permission bits apply to it.
type otherUserRunner struct{ sandbox.Runner }

func (otherUserRunner) User() (int, int) { return 54321, 54321 }

func TestCheckProblemAccess(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	sub := filepath.Join(dir, "tests")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "1.in"), []byte("1 2"), 0o644)
	os.Symlink("/nonexistent", filepath.Join(dir, "dangling"))
	p := &Problem{Dir: dir}
	runner := otherUserRunner{sandbox.NewPlain()}

	if err := CheckProblemAccess(p, runner); err != nil {
		t.Fatalf("readable: %v", err)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{
		{sub, 0o744},                        // listable but not enterable
		{sub, 0o711},                        // enterable but not listable
		{filepath.Join(sub, "1.in"), 0o640}, // not readable by others
		{dir, 0o700},
	} {
		os.Chmod(c.path, c.mode)
		err := CheckProblemAccess(p, runner)
		var pe *ProblemError
		if !errors.Is(err, ErrProblemUnreadable) || !errors.As(err, &pe) || pe.Path != c.path {
			t.Errorf("%s %v: %v", c.path, c.mode, err)
		}
		os.Chmod(c.path, map[bool]os.FileMode{true: 0o755, false: 0o644}[c.path == sub || c.path == dir])
	}
	// The plain runner runs as the judge: nothing to check.
	os.Chmod(dir, 0o700)
	if err := CheckProblemAccess(p, sandbox.NewPlain()); err != nil {
		t.Fatalf("plain runner: %v", err)
	}
}
