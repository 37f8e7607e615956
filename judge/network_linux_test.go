package judge_test

import (
	"context"
	"encoding/json"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
	"github.com/tether-dev/tether/internal/testnet"
	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/sandbox"
	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// An evaluator whose problem asks for the network (Neuro OJ's
// JUDGE_ALLOW_EVALUATOR_NETWORK) reaches a server in a network namespace
// the test made, on an address the judge's options allow, and not a
// listener on the host's 127.0.0.1: it used to share the host's network
// namespace, and reached the host's Redis there.
func TestEvaluatorNetworkOutboundOnly(t *testing.T) {
	testenv.Python3(t)
	testnet.Require(t, sandbox.CheckNetwork())
	runner := sandboxtest.Linux(t)
	peer := testnet.New(t)
	server := testnet.ServeBanner(t, peer.Listen(t), "from-netns")
	hostLn, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := testnet.ServeBanner(t, hostLn, "from-host")

	p, sub := loadRun(t, "testdata/network/problem", "testdata/network/solution.py")
	res, err := judge.Run(context.Background(), p, sub, &judge.Options{Runner: runner,
		EvaluatorNetworkAllow: []netip.Prefix{netip.PrefixFrom(peer.Inside, 32)},
		Env:                   []string{"TETHER_TEST_TARGETS=" + server.String() + "," + host.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != judge.Accepted {
		t.Fatalf("status %v, details %s, output:\n%s", res.Status, res.Details, res.Output)
	}
	var d struct{ Reached map[string]string }
	if err := json.Unmarshal(res.Details, &d); err != nil {
		t.Fatalf("details %s: %v", res.Details, err)
	}
	if got := d.Reached[server.String()]; got != "ok from-netns" {
		t.Errorf("allowed server %s: %q, want ok from-netns", server, got)
	}
	if got := d.Reached[host.String()]; !strings.HasPrefix(got, "failed") {
		t.Errorf("host's loopback %s: %q, want it unreachable", host, got)
	}
}
