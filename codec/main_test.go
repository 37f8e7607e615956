package codec

import (
	"testing"

	"go.uber.org/goleak"
)

// The interop tests start a Python process; goleak proves its pipe
// goroutines are all waited for.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
