package lm_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tether-dev/tether/lm"
	"github.com/tether-dev/tether/lm/backend"
)

// rlmPython is the interpreter of a virtualenv with PyPI rlms==0.1.3
// (TETHER_RLM_PYTHON, set up by scripts/ci-lm.sh). Without it the interop
// tests skip, unless TETHER_REQUIRE_INTEROP=1 makes that a failure.
func rlmPython(t *testing.T) string {
	t.Helper()
	py := os.Getenv("TETHER_RLM_PYTHON")
	if py == "" {
		if os.Getenv("TETHER_REQUIRE_INTEROP") == "1" {
			t.Fatal("TETHER_REQUIRE_INTEROP=1 but TETHER_RLM_PYTHON is not set (run scripts/ci-lm.sh)")
		}
		t.Skip("TETHER_RLM_PYTHON not set: no rlm virtualenv")
	}
	if err := exec.Command(py, "-c", "import rlm.core.comms_utils, rlm.core.lm_handler").Run(); err != nil {
		t.Fatalf("%s cannot import rlm: %v", py, err)
	}
	return py
}

type rlmView struct {
	Success   bool    `json:"success"`
	Error     *string `json:"error"`
	Response  string  `json:"response"`
	RootModel string  `json:"root_model"`
	Prompt    any     `json:"prompt"`
	Calls     int     `json:"calls"`
}

func TestInteropRLMClientAgainstTether(t *testing.T) {
	py := rlmPython(t)
	_, addr := echoServer(t, &backend.Echo{FailOn: "boom"}, nil)
	host, port, _ := net.SplitHostPort(addr)
	out, err := exec.Command(py, "testdata/rlm_client.py", host, port).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("rlm client: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got struct {
		Single, Messages, Missing rlmView
		Batched                   []rlmView
		NotObject                 map[string]any `json:"not_object"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if s := got.Single; !s.Success || s.Response != "hello rlm" || s.RootModel != "echo" || s.Prompt != "hello rlm" || s.Calls != 1 {
		t.Errorf("single = %+v", s)
	}
	if m := got.Messages; !m.Success || m.Response != "café" {
		t.Errorf("message-list prompt = %+v", m)
	}
	if len(got.Batched) != 3 {
		t.Fatalf("batched = %+v", got.Batched)
	}
	for i, want := range []string{"one", "", "three"} {
		b := got.Batched[i]
		if b.Response != want || b.Success != (want != "") {
			t.Errorf("batched[%d] = %+v", i, b)
		}
	}
	if e := got.Batched[1].Error; e == nil || !strings.HasPrefix(*e, "llm() call failed - ") {
		t.Errorf("failed slot error = %v", e)
	}
	if e := got.Missing.Error; got.Missing.Success || e == nil || *e != "Missing 'prompt' or 'prompts' in request." {
		t.Errorf("missing prompt = %+v", got.Missing)
	}
	if got.NotObject["error"] != "Request must be a JSON object" {
		t.Errorf("non-object request = %v", got.NotObject)
	}
}

// startRLMHandler runs rlm's own LMHandler (scripted client) and returns its address.
func startRLMHandler(t *testing.T, py string) string {
	t.Helper()
	cmd := exec.Command(py, "testdata/rlm_handler.py")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("rlm handler did not report its port: %v", err)
	}
	return net.JoinHostPort("127.0.0.1", strings.TrimSpace(line))
}

func TestInteropTetherClientAgainstRLMHandler(t *testing.T) {
	addr := startRLMHandler(t, rlmPython(t))
	// KeepAlive against a server that closes after each request must still work.
	cl, _ := lm.NewClient(addr, &lm.ClientOptions{KeepAlive: true})
	defer cl.Close()
	ctx := context.Background()
	for _, p := range []string{"first", "second"} {
		c, err := cl.Query(ctx, p, "")
		if err != nil || c.Response != p || c.RootModel != "rlm-echo" || c.UsageSummary.Calls() != 1 {
			t.Fatalf("Query(%q) = %+v, %v", p, c, err)
		}
	}
	comps, err := cl.QueryBatch(ctx, []string{"a", "b boom", "c"}, "")
	var slot *lm.SlotError
	if !errors.As(err, &slot) || slot.Index != 1 || !strings.HasPrefix(slot.Message, "llm() call failed - ") {
		t.Errorf("batch error = %v", err)
	}
	if len(comps) != 3 || comps[0].Response != "a" || comps[2].Response != "c" {
		t.Errorf("batch = %+v", comps)
	}
	_, err = cl.Do(ctx, &lm.Request{Depth: 0})
	var remote *lm.RemoteError
	if !errors.As(err, &remote) || remote.Message != "Missing 'prompt' or 'prompts' in request." {
		t.Errorf("missing prompt = %v", err)
	}
	if _, err := cl.Query(ctx, "boom", ""); !errors.As(err, &remote) || remote.Message != "scripted failure" {
		t.Errorf("single failure = %v, want rlm's exception text", err)
	}
}
