//go:build linux

package judge

import (
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// The hostile-solution suite again, with the rootless runner: this test
// binary runs TestHostileSolutions as an unprivileged user made for it
// (testenv.RunTestsAs), where sandboxtest.Isolating picks the rootless
// runner. It needs root to do so; TETHER_REQUIRE_ROOTLESS=1 (CI) turns
// every skip into a failure, as does the suite's own check that this
// machine lets that user make user namespaces.
func TestHostileSolutionsRootless(t *testing.T) {
	testenv.RunTestsAs(t, testenv.RootlessUser, "^TestHostileSolutions$", "TestHostileSolutions", []string{"TETHER_REQUIRE_ROOTLESS=1"})
}
