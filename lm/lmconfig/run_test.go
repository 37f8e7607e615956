package lmconfig_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
)

func TestStartRunBudgetAndUsage(t *testing.T) {
	c, err := lmconfig.Parse([]byte(`{"backends": {"echo": {"type": "echo"}}, "budget": {"calls": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "lm.sock")
	run, err := lmconfig.StartRun(context.Background(), c, sock, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Addr != "unix:"+sock {
		t.Errorf("Addr = %q", run.Addr)
	}
	cl, _ := lm.NewClient(run.Addr, nil)
	ctx := context.Background()
	for _, p := range []string{"one", "two words"} {
		if _, err := cl.Query(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.Query(ctx, "three", ""); !errors.Is(err, lm.ErrRemote) {
		t.Errorf("third call = %v, want the budget's refusal", err)
	}
	u := run.Usage()
	if u.Calls() != 2 || u.Tokens() != 6 {
		t.Errorf("usage = %+v", u)
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}
