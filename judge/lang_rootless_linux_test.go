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
// /usr/bin and the Go toolchain's. To keep the package's time down, the languages whose runs
// differ there (a native program's allocation fails instead of the memory
// limit; the JVM and Node reserve memory up front) stand for the others
// (examples' TestExamplesInEveryLanguageRootless builds Rust there). The cases that end
// before ready by a signal or an exit at load are left to the linux
// sandbox: under the race detector and a loaded machine the rootless
// sandbox's exit report can come after the relay's grace (the message then
// says "stdout closed"), a timing of the rootless runner, not of the
// verdict.
func TestSolutionVerdictsInEveryLanguageRootless(t *testing.T) {
	testenv.RunTestsAs(t, testenv.RootlessUser,
		"^(TestSolutionVerdictsInEveryLanguage|TestJavaScriptModuleSolution)$/^(python|c|java|javascript|go)$/"+
			"^(add.*|compile_error|raises_at_import|throws_at_load|static_initializer_throws|no_class_Solution|panics_in_init)$",
		"TestSolutionVerdictsInEveryLanguage", []string{"TETHER_REQUIRE_ROOTLESS=1", "TETHER_REQUIRE_LANGUAGES=1"})
}
