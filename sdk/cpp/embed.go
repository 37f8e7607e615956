// Package cppsdk carries the C++ solution host (tether.hpp and
// tether_host.cpp) inside the tether binary. A C++ solution includes
// "tether.hpp" and exports functions with TETHER_EXPORT(name); the build
// compiles it together with tether_host.cpp, which holds the host's main
// (docs/languages.md, "C++").
package cppsdk

import (
	"embed"
	"io/fs"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

// The C++ files live in src/: the go tool refuses .cpp files in a Go
// package's own directory.
//
//go:embed src/tether.hpp src/tether_host.cpp
var embedded embed.FS

var sdk = sdkfs.Embed(embedded, "src", "cppsdk")

// Header is the file a solution includes; HostUnit the compile unit with
// the host's runtime and main.
const (
	Header   = "tether.hpp"
	HostUnit = "tether_host.cpp"
)

// Compile builds the executable main in the work dir that holds the source
// ({source}) and the files WriteTo wrote. Run starts it there.
var (
	Compile = []string{"g++", "-std=c++17", "-O2", "-pipe", "-o", "main", "{source}", HostUnit}
	Run     = []string{"./main"}
)

// FS returns the embedded files, "tether.hpp" at its root.
func FS() fs.FS { return sdk.FS() }

// WriteTo writes the host's files into dir (see sdkfs.WriteTo).
func WriteTo(dir string) error { return sdk.WriteTo(dir) }

// Version names the files' content (for a build cache's key).
var Version = sdk.Version
