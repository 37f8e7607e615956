// Package version holds tether's version and the protocol versions it speaks.
package version

// Version is the release of this build; the linker may override it with
// -ldflags "-X github.com/tether-dev/tether/internal/version.Version=v1.2.3".
var Version = "0.1.0-dev"

// Protocols names each wire protocol tether speaks and its version.
var Protocols = map[string]string{
	"dual":    "neuro-oj-ndjson/1",
	"lm":      "rlm-length-prefixed/0.1",
	"jsonrpc": "2.0",
}
