package lmstart_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/tether-dev/tether/internal/testfiles"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/judge/lmstart"
	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/lmconfig"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func problem(t *testing.T, lmField string, files map[string]string) *judge.Problem {
	t.Helper()
	dir := t.TempDir()
	rc := `"evaluator":{"command":"sh e.sh"}`
	if lmField != "" {
		rc += `,"lm":` + lmField
	}
	if err := os.WriteFile(filepath.Join(dir, "problem.json"), []byte(`{"runtime_config":{`+rc+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	testfiles.Write(t, dir, files)
	p, err := judge.LoadProblem(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProblemConfig(t *testing.T) {
	t.Run("absent", func(t *testing.T) {
		cfg, err := lmstart.ProblemConfig(problem(t, "", nil))
		if cfg != nil || err != nil {
			t.Fatalf("got %v, %v; want nil, nil", cfg, err)
		}
	})
	t.Run("inline", func(t *testing.T) {
		cfg, err := lmstart.ProblemConfig(problem(t, `{"backends":{"e":{"type":"echo"}},"budget":{"calls":4}}`, nil))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Default != "e" || cfg.Budget.Calls != 4 {
			t.Errorf("got default %q budget %+v", cfg.Default, cfg.Budget)
		}
	})
	t.Run("file relative to the problem", func(t *testing.T) {
		cfg, err := lmstart.ProblemConfig(problem(t, `"lm.json"`, map[string]string{
			"lm.json": `{"backends":{"f":{"type":"echo"}},"budget":{"tokens":9}}`}))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Default != "f" || cfg.Budget.Tokens != 9 {
			t.Errorf("got default %q budget %+v", cfg.Default, cfg.Budget)
		}
	})
	for _, tc := range []struct {
		name, lm string
		files    map[string]string
		also     error
	}{
		{name: "key named in the problem", also: lmstart.ErrKeyInProblem,
			lm: `{"backends":{"g":{"type":"openai","base_url":"http://127.0.0.1:1","api_key_env":"HOME"}}}`},
		{name: "key named in the problem's file", also: lmstart.ErrKeyInProblem, lm: `"lm.json"`, files: map[string]string{
			"lm.json": `{"backends":{"g":{"type":"openai","base_url":"http://127.0.0.1:1","api_key_env":"HOME"}}}`}},
		{name: "unknown field", lm: `{"backends":{"e":{"type":"echo"}},"budjet":{}}`},
		{name: "no backends", lm: `{}`},
		{name: "missing file", lm: `"nope.json"`, also: os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lmstart.ProblemConfig(problem(t, tc.lm, tc.files))
			var pe *judge.ProblemError
			if !errors.As(err, &pe) || !errors.Is(err, judge.ErrBadProblemJSON) {
				t.Fatalf("err = %v, want a ProblemError wrapping ErrBadProblemJSON", err)
			}
			if tc.also != nil && !errors.Is(err, tc.also) {
				t.Errorf("err = %v, want it to wrap %v", err, tc.also)
			}
		})
	}
}

// query asks the handler at socket once (a client that cannot be made
// fails t).
func query(t *testing.T, socket string) (*lm.Completion, error) {
	t.Helper()
	c, err := lm.NewClient("unix:"+socket, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.Query(context.Background(), "hi", "")
}

func TestStarterPrecedence(t *testing.T) {
	p := problem(t, `{"backends":{"from-problem":{"type":"echo"}}}`, nil)
	t.Run("problem's configuration", func(t *testing.T) {
		socket := filepath.Join(t.TempDir(), "lm.sock")
		h, err := lmstart.Starter(nil, nil)(context.Background(), p, socket, nil)
		if err != nil {
			t.Fatal(err)
		}
		if cc, err := query(t, socket); err != nil || cc.RootModel != "from-problem" {
			t.Errorf("answer %+v, %v; want one from the problem's backend", cc, err)
		}
		usage, err := h.UsageJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		var u lm.UsageSummary
		if err := json.Unmarshal(usage, &u); err != nil || u.ModelUsageSummaries["from-problem"].TotalCalls != 1 {
			t.Errorf("usage %s (%v), want one call of from-problem", usage, err)
		}
		if _, err := os.Stat(socket); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket left after Close: %v", err)
		}
	})
	t.Run("judge's configuration wins", func(t *testing.T) {
		cfg := &lmconfig.Config{Backends: map[string]lmconfig.Backend{"from-judge": {Type: "echo"}}, Default: "from-judge"}
		socket := filepath.Join(t.TempDir(), "lm.sock")
		h, err := lmstart.Starter(cfg, nil)(context.Background(), p, socket, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if cc, err := query(t, socket); err != nil || cc.RootModel != "from-judge" {
			t.Errorf("answer %+v, %v; want one from the judge's backend", cc, err)
		}
	})
	t.Run("no configuration: no handler", func(t *testing.T) {
		h, err := lmstart.Starter(nil, nil)(context.Background(), problem(t, "", nil), filepath.Join(t.TempDir(), "lm.sock"), nil)
		if h != nil || err != nil {
			t.Fatalf("got %v, %v; want nil, nil", h, err)
		}
	})
	t.Run("judge's key variable unset", func(t *testing.T) {
		cfg := &lmconfig.Config{Backends: map[string]lmconfig.Backend{
			"gpt": {Type: "openai", BaseURL: "http://127.0.0.1:1", APIKeyEnv: "TETHER_TEST_UNSET_KEY"}}, Default: "gpt"}
		getenv := func(string) string { return "" }
		h, err := lmstart.Starter(cfg, &lmstart.Options{Getenv: getenv})(context.Background(), p, filepath.Join(t.TempDir(), "lm.sock"), nil)
		if h != nil || err == nil {
			t.Fatalf("got %v, %v; want an error naming the variable", h, err)
		}
	})
}
