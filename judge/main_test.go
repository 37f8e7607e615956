package judge

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// The test binary doubles as the scripted evaluator and solution: the
// judge starts it as `<test binary> tether-side evaluator|solution` and
// TETHER_TEST_EVAL / TETHER_TEST_SOL name the script (see roles_test.go).
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == "tether-side" {
		os.Exit(playSide(os.Args[2]))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if sharedCacheDir != "" {
			os.RemoveAll(sharedCacheDir)
		}
		os.Exit(code)
	}))
}
