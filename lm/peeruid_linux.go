package lm

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// The kernel's socket tables: one line per socket of the network namespace,
// with the owner's uid, as identd reads them. They are read through
// thread-self with the thread locked: /proc/net is the namespace of the
// process's main thread, which may be in a sandbox's namespace after a
// locked start thread ended on it (see package sandbox).
var procNetTCP = []string{"/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"}

// peerLookupErr says why peers' uids cannot be found here, nil if they can.
func peerLookupErr() error {
	for _, p := range procNetTCP {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("cannot read %s, so the uid of a peer cannot be found (no /proc?)", p)
		}
	}
	return nil
}

// peerUID is the uid owning the socket at the other end of a loopback TCP
// connection: the socket whose local address is peer and whose remote
// address is server. d, the kernel's exact lookup, answers unless the
// kernel has none (it cannot open the socket, or it finds not even the
// server's own side); then the socket tables are scanned.
//
// The kernel prints the table a page per read and finds its place again
// by counting sockets, so sockets opened or closed meanwhile can make a
// reading skip a line; a peer not found is looked for again a few times.
func peerUID(d *sockDiag, server, peer netip.AddrPort) (uint32, error) {
	switch uid, found, err := d.lookup(peer, server); {
	case err == nil && found:
		return uid, nil
	case err == nil && d.answers(server, peer):
		return 0, errNoOwner
	case err != nil && !errors.Is(err, errNoDiag):
		return 0, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range 4 {
		for _, p := range procNetTCP {
			f, err := os.Open(p)
			if err != nil {
				return 0, fmt.Errorf("cannot read %s: %w", p, err)
			}
			uid, found, err := findSocketUID(f, peer, server)
			f.Close()
			if err != nil {
				return 0, fmt.Errorf("%s: %w", p, err)
			}
			if found {
				return uid, nil
			}
		}
	}
	return 0, errNoOwner
}

var errNoOwner = errors.New("no socket owner found for the peer's address (it may have closed already)")

// findSocketUID scans a /proc/net/tcp{,6} table for the socket with the
// given local and remote addresses and returns its uid. A socket already
// closed by its owner (TIME_WAIT, or an orphan in FIN_WAIT2) is listed with
// inode 0 and uid 0: it has no owner any more, so it does not count.
func findSocketUID(r io.Reader, local, remote netip.AddrPort) (uid uint32, found bool, err error) {
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	remote = netip.AddrPortFrom(remote.Addr().Unmap(), remote.Port())
	// Most lines are other sockets: compare the local port's text first.
	port := fmt.Sprintf(":%04X", local.Port())
	sc := bufio.NewScanner(r)
	first := true
	for sc.Scan() {
		if first { // the column titles
			first = false
			continue
		}
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
		f := strings.Fields(sc.Text())
		if len(f) < 10 || !strings.HasSuffix(f[1], port) {
			continue
		}
		l, err1 := parseProcAddr(f[1])
		rm, err2 := parseProcAddr(f[2])
		if err1 != nil || err2 != nil {
			return 0, false, fmt.Errorf("bad address in line %q", sc.Text())
		}
		if l != local || rm != remote || f[9] == "0" {
			continue
		}
		u, err := strconv.ParseUint(f[7], 10, 32)
		if err != nil {
			return 0, false, fmt.Errorf("bad uid in line %q", sc.Text())
		}
		return uint32(u), true, nil
	}
	return 0, false, sc.Err()
}

// parseProcAddr reads "0100007F:1F90": the address as 32-bit words each
// printed in the host's byte order, then the port in hex.
func parseProcAddr(s string) (netip.AddrPort, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, errors.New("no port")
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, err
	}
	raw, err := hex.DecodeString(a)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, errors.New("bad address")
	}
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(raw[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), nil
}
