package sandbox

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// An operator's allow-list: addresses become /32s, CIDRs are masked, blank
// entries are dropped; IPv6 and anything unreadable are refused, naming the
// setting and the entry.
func TestParseNetworkAllow(t *testing.T) {
	got, err := ParseNetworkAllow("--evaluator-network-allow", []string{"10.1.2.3", " 192.168.7.9/24 ", ""})
	want := []netip.Prefix{netip.MustParsePrefix("10.1.2.3/32"), netip.MustParsePrefix("192.168.7.0/24")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"fd00::1", "fd00::/8", "example.com", "10.0.0.0/33"} {
		_, err := ParseNetworkAllow("--evaluator-network-allow", []string{bad})
		if err == nil || !strings.Contains(err.Error(), "--evaluator-network-allow") || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("%q: %v, want an error naming the flag and the entry", bad, err)
		}
	}
}
