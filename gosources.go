// Package tether holds the Go sources a Go solution builds against: the
// solution SDK (sdk/go/solution) and the packages it imports, all of this
// module and all standard library only. sdk/golang writes them beside a
// submission, so that it builds with no network and no module download.
package tether

import "embed"

// GoSDK is every package a Go solution may import from this module, with
// go.mod (for its go version). Tests are filtered out by the writer.
//
//go:embed go.mod
//go:embed codec/*.go internal/jsonscan/*.go wire/*.go
//go:embed sdk/go/solution/*.go sdk/go/internal/frame/*.go sdk/go/internal/peer/*.go
var GoSDK embed.FS
