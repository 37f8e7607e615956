// Package testnet gives tests a network namespace of their own, joined to
// the host's by a veth pair, and a server in it: a host that a sandbox
// with the network can be shown to reach (or not) without a packet leaving
// the machine. It needs root and iproute2; Require says what is missing.
package testnet

// Linux only: testnet_linux.go.
