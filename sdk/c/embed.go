// Package csdk carries the C (C11) solution host, tether.h and tether.c,
// inside the tether binary. A solution includes "tether.h" and exports
// functions over JSON values with TETHER_EXPORT(name); tether.c holds the
// host's main (docs/languages.md, "C").
package csdk

import (
	"embed"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

// The C files live in src/: the go tool refuses .c files in a Go package's
// own directory without cgo.
//
//go:embed src/tether.h src/tether.c
var embedded embed.FS

// Files are the host's files as the binary carries them: Files.FS() has
// "tether.h" at its root, Files.WriteTo(dir) writes them into a work dir
// (sdkfs.WriteTo), and Files.Version names their content (a build cache's
// key).
var Files = sdkfs.Embed(embedded, "src", "csdk")

// Header is the file a solution includes; HostUnit the compile unit with
// the host's runtime and main.
const (
	Header   = "tether.h"
	HostUnit = "tether.c"
)

// Compile builds the executable main in the work dir holding the source
// ({source}) and the files Files.WriteTo wrote. Run starts it there.
var (
	Compile = []string{"gcc", "-std=c11", "-O2", "-pipe", "-o", "main", "{source}", HostUnit, "-lm", "-lpthread"}
	Run     = []string{"./main"}
)
