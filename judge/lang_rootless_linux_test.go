//go:build linux

package judge

import (
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// The per-language verdicts again with the rootless sandbox: this test
// binary runs them as the unprivileged user testenv.RootlessUser, where
// sandboxtest.Isolating picks the rootless runner (see
// TestHostileSolutionsRootless). The toolchains there are those of
// /usr/bin.
func TestSolutionVerdictsInEveryLanguageRootless(t *testing.T) {
	testenv.RunTestsAs(t, testenv.RootlessUser,
		"^(TestSolutionVerdictsInEveryLanguage|TestAplusbInEveryLanguage|TestJavaScriptModuleSolution)$",
		"TestSolutionVerdictsInEveryLanguage", []string{"TETHER_REQUIRE_ROOTLESS=1", "TETHER_REQUIRE_LANGUAGES=1"})
}
