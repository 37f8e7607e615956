package lm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"sync"

	"golang.org/x/sys/unix"
)

// errNoDiag: the kernel's socket-diagnostics lookup cannot be used here
// (no inet_diag); peerUID then scans the socket tables instead.
var errNoDiag = errors.New("sock_diag lookup not available")

// Sizes of the request (struct nlmsghdr, then struct inet_diag_req_v2 of
// linux/inet_diag.h) and of the buffer for its one-message answer.
const (
	diagReqLen = unix.SizeofNlMsghdr + 56
	diagBufLen = 8 << 10
)

// sockDiag asks the kernel, over NETLINK_SOCK_DIAG, for the one TCP socket
// with exactly a given local and remote address, and returns its owner's
// uid: one lookup by the kernel's own hash, where a scan of /proc/net/tcp
// reads every socket of the namespace (TIME_WAIT ones included).
//
// One socket serves every lookup of a server, one lookup at a time: the
// kernel answers a request before the send returns, so a lookup holds the
// lock for a send and a read, and a socket per lookup (which cost more than
// the request it guarded) is not needed. A socket that misbehaves is closed
// and a new one opened. Nothing is allocated per lookup.
type sockDiag struct {
	family func(netip.Addr) uint8 // the address family asked for: diagFamily (tests ask for one the kernel has no handler for)
	mu     sync.Mutex
	fd     int // -1 when not open
	closed bool
	seq    uint32
	req    [diagReqLen]byte
	buf    [diagBufLen]byte
}

func newSockDiag() *sockDiag { return &sockDiag{fd: -1, family: diagFamily} }

func diagFamily(a netip.Addr) uint8 {
	if a.Is4() {
		return unix.AF_INET
	}
	return unix.AF_INET6
}

// lookup returns the uid owning the socket whose local address is local and
// remote address remote; found is false when no such socket has an owner
// (gone, or closed by its owner: inode 0). A socket that fails is replaced
// once; errNoDiag means the kernel cannot answer here.
func (d *sockDiag) lookup(local, remote netip.AddrPort) (uid uint32, found bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, false, errors.New("the LM server is closed")
	}
	for attempt := 0; ; attempt++ {
		if d.fd < 0 {
			fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.NETLINK_SOCK_DIAG)
			if err != nil {
				return 0, false, fmt.Errorf("%w: %v", errNoDiag, err)
			}
			// Connected to the kernel, so plain write and read need no address.
			if err := unix.Connect(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
				unix.Close(fd)
				return 0, false, fmt.Errorf("%w: %v", errNoDiag, err)
			}
			d.fd = fd
		}
		uid, found, err = d.ask(local, remote)
		if err == nil || attempt == 1 {
			return uid, found, err
		}
		// A socket left in a bad state (an answer lost or out of turn):
		// start again on a new one.
		unix.Close(d.fd)
		d.fd = -1
	}
}

// answers reports whether the kernel's lookup works here, asked when it
// found no peer socket: a kernel without inet_diag answers "no such
// socket" (ENOENT) to every request, as it does for a socket that is
// gone. It looks up the server's own side of the connection, which is
// open while the server checks its peer.
func (d *sockDiag) answers(server, peer netip.AddrPort) bool {
	_, found, err := d.lookup(server, peer)
	return err == nil && found
}

// ask sends one request on d.fd and reads its answer; under d.mu.
func (d *sockDiag) ask(local, remote netip.AddrPort) (uid uint32, found bool, err error) {
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	remote = netip.AddrPortFrom(remote.Addr().Unmap(), remote.Port())
	family := d.family(local.Addr())
	d.seq++
	req := d.req[:]
	clear(req)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], diagReqLen)
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], d.seq)
	r := req[unix.SizeofNlMsghdr:]
	r[0], r[1] = family, unix.IPPROTO_TCP
	ne.PutUint32(r[4:], 0xffffffff) // every state
	id := r[8:]                     // struct inet_diag_sockid
	binary.BigEndian.PutUint16(id[0:], local.Port())
	binary.BigEndian.PutUint16(id[2:], remote.Port())
	putDiagAddr(id[4:20], local.Addr())
	putDiagAddr(id[20:36], remote.Addr())
	ne.PutUint32(id[40:], 0xffffffff) // INET_DIAG_NOCOOKIE
	ne.PutUint32(id[44:], 0xffffffff)
	if _, err := unix.Write(d.fd, req); err != nil {
		return 0, false, fmt.Errorf("%w: %v", errNoDiag, err)
	}
	// The kernel queued its answer before the write returned: a read that
	// would wait (EAGAIN) means it is lost.
	n, err := unix.Read(d.fd, d.buf[:])
	if err != nil {
		return 0, false, fmt.Errorf("%w: %v", errNoDiag, err)
	}
	return parseDiagReply(d.buf[:max(n, 0)], d.seq)
}

// parseDiagReply reads the one message answering request seq: the socket
// found, or an error (ENOENT: none has that address).
func parseDiagReply(b []byte, seq uint32) (uid uint32, found bool, err error) {
	ne := binary.NativeEndian
	if len(b) < unix.SizeofNlMsghdr {
		return 0, false, fmt.Errorf("%w: an answer of %d bytes", errNoDiag, len(b))
	}
	size, typ, gotSeq := int(ne.Uint32(b[0:])), ne.Uint16(b[4:]), ne.Uint32(b[8:])
	if size < unix.SizeofNlMsghdr || size > len(b) {
		return 0, false, fmt.Errorf("%w: an answer that does not parse", errNoDiag)
	}
	if gotSeq != seq {
		return 0, false, fmt.Errorf("%w: the answer to request %d, want %d", errNoDiag, gotSeq, seq)
	}
	data := b[unix.SizeofNlMsghdr:size]
	switch {
	case typ == unix.NLMSG_ERROR && len(data) >= 4:
		errno := unix.Errno(-int32(ne.Uint32(data)))
		if errno == unix.ENOENT {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("%w: %v", errNoDiag, errno)
	case typ == unix.SOCK_DIAG_BY_FAMILY && len(data) >= 72:
		// struct inet_diag_msg: 4 bytes, the sockid (48), expires, rqueue,
		// wqueue, uid, inode.
		uid, inode := ne.Uint32(data[64:]), ne.Uint32(data[68:])
		return uid, inode != 0, nil
	}
	return 0, false, fmt.Errorf("%w: an answer of type %d", errNoDiag, typ)
}

// close closes the socket; lookups after it fail.
func (d *sockDiag) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// putDiagAddr writes an address as inet_diag_sockid holds it: IPv4 in the
// first four bytes, IPv6 in all sixteen, network order.
func putDiagAddr(dst []byte, a netip.Addr) {
	if a.Is4() {
		b := a.As4()
		copy(dst, b[:])
		return
	}
	b := a.As16()
	copy(dst, b[:])
}
