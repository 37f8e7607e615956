// Package rustsdk carries the Rust solution host, tether.rs and its crate
// root tether_main.rs, inside the tether binary. The solution (main.rs)
// ends with tether_export!(add, ...) (for functions declared in
// problem.json, package sig appends it); rustc builds the crate rooted at
// tether_main.rs, with no cargo and no crates (docs/languages.md, "Rust").
package rustsdk

import (
	"embed"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

//go:embed src/tether.rs src/tether_main.rs
var embedded embed.FS

// Files are the host's files as the binary carries them: Files.FS() has
// "tether.rs" at its root, Files.WriteTo(dir) writes them into a work dir
// (sdkfs.WriteTo), and Files.Version names their content (a build cache's
// key).
var Files = sdkfs.Embed(embedded, "src", "rustsdk")

// CrateRoot is the file rustc compiles; it includes the solution, which
// must be saved as Source beside it.
const (
	CrateRoot = "tether_main.rs"
	Source    = "main.rs"
)

// Compile builds the executable main in the work dir holding Source and
// the files Files.WriteTo wrote; Run starts it there. Edition 2021 and nothing
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
