//go:build linux

package lang

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// rootlessTestUser is the unprivileged user the rootless run uses (made by
// .ci/run, or here, if missing).
const rootlessTestUser = "tether-rootless"

// The compile tests again with the rootless sandbox: this test binary runs
// them as an unprivileged user (setpriv), where sandboxtest.Isolating picks
// the rootless runner. TETHER_REQUIRE_ROOTLESS=1 turns a skip into a failure.
func TestBuildRootless(t *testing.T) {
	testenv.Toolchain(t, "g++")
	out := testenv.RunTestsAs(t, rootlessTestUser,
		"^(TestCompileAndRunCpp|TestCompileErrorShowsTheCompilerLine|TestCompilerBombs|TestCacheHitMissAndCorruption|TestCacheTwoBuildersAtOnce|TestGoBuildsOnAWarmReadOnlyCache)$",
		"TestCompileAndRunCpp", []string{"TETHER_REQUIRE_ROOTLESS=1", "TETHER_REQUIRE_LANGUAGES=1"})
	if n := strings.Count("\n"+out, "\n--- PASS: Test"); n != 6 {
		t.Fatalf("%d tests passed as %s, want 6", n, rootlessTestUser)
	}
}
