// Package csdk carries the C (C11) solution host, tether.h and tether.c,
// inside the tether binary. A solution includes "tether.h" and exports
// functions over JSON values with TETHER_EXPORT(name); tether.c holds the
// host's main (docs/languages.md, "C").
package csdk

import (
	"embed"
	"io/fs"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

// The C files live in src/: the go tool refuses .c files in a Go package's
// own directory without cgo.
//
//go:embed src/tether.h src/tether.c
var embedded embed.FS

var sdk = sdkfs.Embed(embedded, "src", "csdk")

// Header is the file a solution includes; HostUnit the compile unit with
// the host's runtime and main.
const (
	Header   = "tether.h"
	HostUnit = "tether.c"
)

// Compile builds the executable main in the work dir holding the source
// ({source}) and the files WriteTo wrote. Run starts it there.
var (
	Compile = []string{"gcc", "-std=c11", "-O2", "-pipe", "-o", "main", "{source}", HostUnit, "-lm", "-lpthread"}
	Run     = []string{"./main"}
)

// FS returns the embedded files, "tether.h" at its root.
func FS() fs.FS { return sdk.FS() }

// WriteTo writes the host's files into dir (see sdkfs.WriteTo).
func WriteTo(dir string) error { return sdk.WriteTo(dir) }

// Version names the files' content (for a build cache's key).
var Version = sdk.Version
