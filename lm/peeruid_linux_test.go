package lm

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"
)

// A /proc/net/tcp and tcp6 sample as a little-endian kernel prints it:
// a client 127.0.0.1:41908 (uid 1000) connected to a server on
// 127.0.0.1:8080 (uid 0), the same pair in TIME_WAIT (no owner), and in
// tcp6 a client [::1]:50000 (uid 1001) of [::1]:8080 and an IPv4-mapped
// client ::ffff:127.0.0.2:41000 (uid 1002) of 127.0.0.1:8080.
const procTCPSample = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 11111 1 0000000000000000 100 0 0 10 0
   1: 0100007F:A3B4 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 22222 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:1F90 0100007F:A3B4 01 00000000:00000000 00:00000000 00000000     0        0 33333 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:C000 0100007F:1F90 06 00000000:00000000 03:00001770 00000000     0        0 0 3 0000000000000000
`

const procTCP6Sample = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:C350 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000  1001        0 44444 1 0000000000000000 20 4 30 10 -1
   1: 0000000000000000FFFF00000200007F:A028 0000000000000000FFFF00000100007F:1F90 01 00000000:00000000 00:00000000 00000000  1002        0 55555 1 0000000000000000 20 4 30 10 -1
`

func TestFindSocketUID(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the sample is as a little-endian kernel prints it")
	}
	ap := netip.MustParseAddrPort
	for _, tc := range []struct {
		name, table   string
		local, remote string
		uid           uint32
		found         bool
	}{
		{"ipv4 client", procTCPSample, "127.0.0.1:41908", "127.0.0.1:8080", 1000, true},
		{"ipv4 server side", procTCPSample, "127.0.0.1:8080", "127.0.0.1:41908", 0, true},
		{"time-wait has no owner", procTCPSample, "127.0.0.1:49152", "127.0.0.1:8080", 0, false},
		{"unknown port", procTCPSample, "127.0.0.1:41909", "127.0.0.1:8080", 0, false},
		{"ipv6 loopback", procTCP6Sample, "[::1]:50000", "[::1]:8080", 1001, true},
		{"ipv4-mapped", procTCP6Sample, "127.0.0.2:41000", "127.0.0.1:8080", 1002, true},
		{"ipv4-mapped asked mapped", procTCP6Sample, "[::ffff:127.0.0.2]:41000", "[::ffff:127.0.0.1]:8080", 1002, true},
	} {
		uid, found, err := findSocketUID(strings.NewReader(tc.table), ap(tc.local), ap(tc.remote))
		if err != nil || uid != tc.uid || found != tc.found {
			t.Errorf("%s: got uid %d found %v err %v, want uid %d found %v", tc.name, uid, found, err, tc.uid, tc.found)
		}
	}
	bad := procTCPSample + "   4: 0100007G:1F90 0100007F:A3B4 01 00000000:00000000 00:00000000 00000000 0 0 1 1\n"
	if _, _, err := findSocketUID(strings.NewReader(bad), ap("127.0.0.1:8080"), ap("127.0.0.1:2")); err == nil {
		t.Error("a line with a bad address: no error")
	}
}
