package main

import (
	"strings"
	"testing"
)

// A bad --evaluator-network-allow entry stops tether judge before any run,
// naming the flag and the entry.
func TestJudgeNetworkAllowFlag(t *testing.T) {
	_, err := runJudgeCLI(t, "--evaluator-network-allow", "10.0.0.0/8,bogus", "../../examples/aplusb", "../../examples/aplusb/solution.py")
	if err == nil || !strings.Contains(err.Error(), `--evaluator-network-allow "bogus"`) {
		t.Fatalf("err = %v, want one naming --evaluator-network-allow and \"bogus\"", err)
	}
}
