// Package cppsdk carries the C++ solution host (tether.hpp and
// tether_host.cpp) inside the tether binary. A C++ solution includes
// "tether.hpp" and exports functions with TETHER_EXPORT(name); the build
// compiles it together with tether_host.cpp, which holds the host's main
// (docs/languages.md, "C++").
package cppsdk

import (
	"embed"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

// The C++ files live in src/: the go tool refuses .cpp files in a Go
// package's own directory.
//
//go:embed src/tether.hpp src/tether_host.cpp
var embedded embed.FS

// Files are the host's files as the binary carries them: Files.FS() has
// "tether.hpp" at its root, Files.WriteTo(dir) writes them into a work dir
// (sdkfs.WriteTo), and Files.Version names their content (a build cache's
// key).
var Files = sdkfs.Embed(embedded, "src", "cppsdk")

// Header is the file a solution includes; HostUnit the compile unit with
// the host's runtime and main.
const (
	Header   = "tether.hpp"
	HostUnit = "tether_host.cpp"
)

// Compile builds the executable main in the work dir that holds the source
// ({source}) and the files Files.WriteTo wrote. Run starts it there.
var (
	Compile = []string{"g++", "-std=c++17", "-O2", "-pipe", "-o", "main", "{source}", HostUnit}
	Run     = []string{"./main"}
)

// PrecompiledHeader is a header the judge precompiles once (GCC's
// precompiled headers, forced into a submission's compile with -include):
// its file name and what it includes, as a source writes them.
type PrecompiledHeader struct {
	Name     string
	Includes []string
}

// Precompiled are the headers, in the order the judge tries them for a
// submission whose source begins by including what one includes:
// tether.hpp and <bits/stdc++.h>, the whole standard library most
// contestants include; else tether.hpp alone (the judge includes it before
// declared functions) (docs/languages.md, "C++").
var Precompiled = []PrecompiledHeader{
	{Name: "tether_stdcpp.hpp", Includes: []string{`"` + Header + `"`, "<bits/stdc++.h>"}},
	{Name: "tether_pch.hpp", Includes: []string{`"` + Header + `"`}},
}
