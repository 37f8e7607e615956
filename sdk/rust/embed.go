// Package rustsdk carries the Rust solution host, tether.rs and its crate
// root tether_main.rs, inside the tether binary. The solution (main.rs)
// ends with tether_export!(add, ...) (for functions declared in
// problem.json, package sig appends it); rustc builds the crate rooted at
// tether_main.rs, with no cargo and no crates (docs/languages.md, "Rust").
package rustsdk

import (
	"embed"
	"io/fs"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

//go:embed src/tether.rs src/tether_main.rs
var embedded embed.FS

var sdk = sdkfs.Embed(embedded, "src", "rustsdk")

// CrateRoot is the file rustc compiles; it includes the solution, which
// must be saved as Source beside it.
const (
	CrateRoot = "tether_main.rs"
	Source    = "main.rs"
)

// Compile builds the executable main in the work dir holding Source and
// the files WriteTo wrote; Run starts it there. Edition 2021 and nothing
// newer than Debian's rustc (1.63) accepts. The linker is gcc by name:
// rustc's default, cc, is a link into /etc/alternatives, which a sandbox
// does not show. strip=debuginfo drops the standard library's debug
// info (4.5 MB of a 5 MB executable; symbols stay, so a backtrace still
// names functions): the build cache checks every file's SHA-256 on a hit,
// and an add solution's hit took 22 ms with it, 1-2 ms without.
var (
	Compile = []string{"rustc", "--edition", "2021", "-O", "-C", "linker=gcc", "-C", "strip=debuginfo", "-o", "main", CrateRoot}
	Run     = []string{"./main"}
)

// FS returns the embedded files, "tether.rs" at its root.
func FS() fs.FS { return sdk.FS() }

// WriteTo writes the host's files into dir (see sdkfs.WriteTo).
func WriteTo(dir string) error { return sdk.WriteTo(dir) }

// Version names the files' content (for a build cache's key).
var Version = sdk.Version
