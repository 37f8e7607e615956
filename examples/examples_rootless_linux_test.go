//go:build linux

package examples_test

import (
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// The examples again with the rootless sandbox: this test binary runs
// TestExamplesInEveryLanguage as the unprivileged user
// testenv.RootlessUser, where sandboxtest.Isolating picks the rootless
// runner. aplusb in every language and every example's C++ solution stand
// for the rest, to keep the package's time down; Go, whose first build
// there warms a cache of its own, is judged rootless by judge's
// TestSolutionVerdictsInEveryLanguageRootless instead. (A subtest is
// named example/file, so -run matches the example and the file level by
// level; aplusb/go/solution.go's second level is "go".)
func TestExamplesInEveryLanguageRootless(t *testing.T) {
	env := []string{"TETHER_REQUIRE_ROOTLESS=1", "TETHER_REQUIRE_LANGUAGES=1"}
	testenv.RunTestsAs(t, testenv.RootlessUser, `^TestExamplesInEveryLanguage$/^aplusb$/^(solution\.(py|cpp|c|js|rs)|Solution\.java)$`,
		"TestExamplesInEveryLanguage/aplusb/solution.rs", env)
	testenv.RunTestsAs(t, testenv.RootlessUser, `^TestExamplesInEveryLanguage$/^[a-z]+$/^solution\.cpp$`,
		"TestExamplesInEveryLanguage/noj/solution.cpp", env)
}
