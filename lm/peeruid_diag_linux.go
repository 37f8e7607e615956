package lm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// errNoDiag: the kernel's socket-diagnostics lookup cannot be used here
// (no inet_diag); peerUID then scans the socket tables instead.
var errNoDiag = errors.New("sock_diag lookup not available")

// diagSocketUID asks the kernel, over NETLINK_SOCK_DIAG, for the one TCP
// socket with exactly this local and remote address, and returns its
// owner's uid. One lookup by the kernel's own hash, where a scan of
// /proc/net/tcp reads every socket of the namespace (TIME_WAIT ones
// included): under a load of short connections that scan cost more than
// the request it guarded. found is false when no such socket has an owner
// (gone, or closed by its owner: inode 0).
func diagSocketUID(local, remote netip.AddrPort) (uid uint32, found bool, err error) {
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	remote = netip.AddrPortFrom(remote.Addr().Unmap(), remote.Port())
	family := uint8(unix.AF_INET6)
	if local.Addr().Is4() {
		family = unix.AF_INET
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, false, fmt.Errorf("%w: %v", errNoDiag, err)
	}
	defer unix.Close(fd)

	// struct nlmsghdr, then struct inet_diag_req_v2 (linux/inet_diag.h).
	const reqLen = unix.SizeofNlMsghdr + 56
	req := make([]byte, reqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], reqLen)
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1) // seq
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
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, false, fmt.Errorf("%w: %v", errNoDiag, err)
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, false, fmt.Errorf("%w: %v", errNoDiag, err)
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil || len(msgs) == 0 {
		return 0, false, fmt.Errorf("%w: a reply that does not parse", errNoDiag)
	}
	m := msgs[0]
	switch {
	case m.Header.Type == unix.NLMSG_ERROR && len(m.Data) >= 4:
		if errno := syscall.Errno(-int32(ne.Uint32(m.Data))); errno == unix.ENOENT {
			return 0, false, nil
		} else {
			return 0, false, fmt.Errorf("%w: %v", errNoDiag, errno)
		}
	case m.Header.Type == unix.SOCK_DIAG_BY_FAMILY && len(m.Data) >= 72:
		// struct inet_diag_msg: 4 bytes, the sockid (48), expires, rqueue,
		// wqueue, uid, inode.
		uid, inode := ne.Uint32(m.Data[64:]), ne.Uint32(m.Data[68:])
		return uid, inode != 0, nil
	}
	return 0, false, fmt.Errorf("%w: reply of type %d", errNoDiag, m.Header.Type)
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
