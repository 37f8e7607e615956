package worker

import (
	"strings"
	"testing"
)

// A task carries only runtime_config; the functions its package's
// problem.json declares still reach the evaluator (and the build): a
// solution returning a string from add is WrongAnswer with the SDK's words.
func TestJudgerTakesDeclaredFunctionsFromThePackage(t *testing.T) {
	res, err := judgeAplusbTask(t, "def add(a, b):\n    return str(a + b)\n")
	if err != nil || res.Status != "WrongAnswer" || !strings.Contains(string(res.Details), "add returned a string, expected an integer") {
		t.Fatalf("Judge = %+v (details %s), %v", res, res.Details, err)
	}
}
