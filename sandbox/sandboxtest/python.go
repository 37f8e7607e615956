package sandboxtest

import (
	"os"
	"os/exec"
	"testing"
)

// Python3 skips t where python3 is not on PATH (the sides of most test
// problems are Python programs), unless CI requires it
// (TETHER_REQUIRE_INTEROP=1), where that fails t instead.
func Python3(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("TETHER_REQUIRE_INTEROP") == "1" {
			t.Fatalf("TETHER_REQUIRE_INTEROP=1 but python3 is not on PATH: %v", err)
			return // for a TB whose Fatalf returns
		}
		t.Skipf("python3 not on PATH: %v", err)
	}
}
