// Package testenv decides what a test does when something it needs from
// the machine is missing (python3, redis-server, ...): it is skipped,
// unless CI requires that thing with TETHER_REQUIRE_<X>=1 (.ci/run sets
// them), where the test fails instead, so that CI never passes by
// skipping.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// Require skips t when err says what it needs is missing, or fails it
// when the environment variable env is "1". A nil err does nothing.
func Require(t testing.TB, env string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv(env) == "1" {
		t.Fatalf("%s=1 but %v", env, err)
		return // for a TB whose Fatalf returns
	}
	t.Skipf("%v (set %s=1 to make this a failure)", err, env)
}

// Python3 is the path of python3 on PATH; without one, see Require
// (TETHER_REQUIRE_INTEROP).
func Python3(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		err = fmt.Errorf("no python3 on PATH (apt-get install python3): %w", err)
	}
	Require(t, "TETHER_REQUIRE_INTEROP", err)
	return p
}

// TimeScale is how many times longer than on a real CPU the wall-clock
// limits of a test's runs may take: TETHER_TIME_SCALE, 1 when unset, more
// on an emulated machine (scripts/vm-cgroup2.sh runs the sandbox suites
// under QEMU's TCG with it set). A value that is not a number of at least
// 1 counts as 1.
func TimeScale() float64 {
	s, err := strconv.ParseFloat(os.Getenv("TETHER_TIME_SCALE"), 64)
	if err != nil || s < 1 {
		return 1
	}
	return s
}

// SharedBuildCache is the dir of a build cache (lang.OpenCache) shared by
// the test packages of one `go test` run, so that what they build alike
// (Go's standard library warmed for the Go host, the C and C++ hosts'
// objects, a solution two packages judge) is built once:
// TETHER_TEST_BUILD_CACHE, which `make test` sets to a fresh dir of its own;
// "" when unset, and a test then opens a cache of its own. Only for
// caches that already share builds within a package: a test about the
// cache, or that must see a cold compile, opens its own. A test run as
// another user (RunTestsAs) does not get it.
func SharedBuildCache() string {
	return os.Getenv("TETHER_TEST_BUILD_CACHE")
}

// Toolchain is the path of a language's compiler or runtime (g++, javac,
// node, ...) on PATH; without one, see Require (TETHER_REQUIRE_LANGUAGES).
func Toolchain(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		err = fmt.Errorf("%s is not installed (.ci/run installs the toolchains: g++, gcc, a JDK, nodejs, rustc): %w", name, err)
	}
	Require(t, "TETHER_REQUIRE_LANGUAGES", err)
	return p
}
