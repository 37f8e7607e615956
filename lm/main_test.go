package lm_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The test binary doubles as a client run as another user (peerauth tests).
	if addr := os.Getenv(peerClientEnv); addr != "" {
		os.Exit(peerClient(addr))
	}
	goleak.VerifyTestMain(m)
}
