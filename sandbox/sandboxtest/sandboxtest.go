// Package sandboxtest gives other packages' tests a sandbox runner, or
// skips them where this machine cannot make one — unless CI asks for it
// (TETHER_REQUIRE_SANDBOX=1 for the linux runner, TETHER_REQUIRE_ROOTLESS=1
// for the rootless one), where that fails them instead. Each runner is
// closed when the test ends.
package sandboxtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/sandbox"
)

// Linux is the linux runner.
func Linux(t testing.TB) *sandbox.Linux {
	t.Helper()
	r, err := sandbox.NewLinux(nil)
	require(t, "TETHER_REQUIRE_SANDBOX", "linux", err)
	t.Cleanup(func() { r.Close() })
	return r
}

// Rootless is the rootless runner.
func Rootless(t testing.TB) *sandbox.Rootless {
	t.Helper()
	r, err := sandbox.NewRootless()
	require(t, "TETHER_REQUIRE_ROOTLESS", "rootless", err)
	t.Cleanup(func() { r.Close() })
	return r
}

// Isolating is the runner that isolates most for this user: the linux
// runner as root, else the rootless one.
func Isolating(t testing.TB) sandbox.Runner {
	t.Helper()
	if os.Geteuid() != 0 {
		return Rootless(t)
	}
	return Linux(t)
}

// require fails or skips t where err says the runner cannot be made.
func require(t testing.TB, env, kind string, err error) {
	t.Helper()
	if err != nil {
		err = fmt.Errorf("the %s sandbox is unavailable: %w", kind, err)
	}
	testenv.Require(t, env, err)
}
