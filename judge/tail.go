package judge

import (
	"strings"

	"github.com/tether-dev/tether/internal/tail"
)

// MaxStreamOutput is how much of each evaluator stream is kept (docs/protocol/judge.md).
const MaxStreamOutput = 1 << 20

// tailBuffer keeps the last bytes a side writes (package tail).
type tailBuffer = tail.Buffer

func newTailBuffer(max int) *tailBuffer { return tail.New(max) }

// MaxStderrTail is how much of each side's stderr ProcessExit.Stderr holds.
const MaxStderrTail = 4 << 10

// stderrTail is the last lines of s in at most MaxStderrTail bytes: cut on
// a character boundary, then past the first newline when a whole line
// still follows it.
func stderrTail(s string) string {
	if len(s) <= MaxStderrTail {
		return s
	}
	t := tail.New(MaxStderrTail)
	t.Write([]byte(s))
	kept := t.String()
	if i := strings.IndexByte(kept, '\n'); i >= 0 && i+1 < len(kept) {
		kept = kept[i+1:]
	}
	return kept
}
