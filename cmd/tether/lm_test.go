package main

import (
	"bytes"
	"strings"
	"testing"
)

// `tether lm serve` refuses a non-loopback address at start-up, naming the
// reason and both ways out, before printing any address.
func TestLMServeRefusesNonLoopbackWithoutFlag(t *testing.T) {
	cmd := newLMServeCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"--listen", "0.0.0.0:0"})
	err := cmd.Execute()
	if err == nil {
		t.Fatal("lm serve --listen 0.0.0.0:0 started without --insecure-no-auth")
	}
	for _, want := range []string{"not a loopback address", "unix:PATH", "--insecure-no-auth"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(out.String(), "0.0.0.0:") {
		t.Errorf("printed an address though it refused: %q", out.String())
	}
}
