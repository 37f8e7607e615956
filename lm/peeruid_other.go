//go:build !linux

package lm

import (
	"errors"
	"net/netip"
)

var errNoPeerLookup = errors.New("this system has no /proc/net/tcp, so the uid of a peer cannot be found")

func peerLookupErr() error { return errNoPeerLookup }

// sockDiag is Linux's socket lookup; elsewhere there is none.
type sockDiag struct{}

func newSockDiag() *sockDiag { return &sockDiag{} }

func (*sockDiag) close() {}

func peerUID(d *sockDiag, server, peer netip.AddrPort) (uint32, error) { return 0, errNoPeerLookup }
