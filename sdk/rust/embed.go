// Package rustsdk carries the Rust solution host, tether.rs and its crate
// roots tether_main.rs and tether_bin.rs, inside the tether binary. The
// solution (main.rs) ends with tether_export!(add, ...) (for functions
// declared in problem.json, package sig appends it); rustc builds it with
// no cargo and no crates but the host's (docs/languages.md, "Rust").
package rustsdk

import (
	"embed"
	"slices"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

//go:embed src/tether.rs src/tether_main.rs src/tether_bin.rs
var embedded embed.FS

// Files are the host's files as the binary carries them: Files.FS() has
// "tether.rs" at its root, Files.WriteTo(dir) writes them into a work dir
// (sdkfs.WriteTo), and Files.Version names their content (a build cache's
// key).
var Files = sdkfs.Embed(embedded, "src", "rustsdk")

// CrateRoot is the file Compile builds: the host and the solution as one
// crate; it includes the solution, which must be saved as Source beside
// it. HostUnit is the host's source, which CompileHost builds alone into
// Library, the crate tether; BinRoot is the crate root CompileSolution
// builds against Library, including Source as CrateRoot does.
const (
	CrateRoot = "tether_main.rs"
	Source    = "main.rs"
	HostUnit  = "tether.rs"
	Library   = "libtether.rlib"
	BinRoot   = "tether_bin.rs"
)

// Compile builds the executable main in the work dir holding Source and
// the files Files.WriteTo wrote; Run starts it there. Edition 2021 and nothing
// newer than Debian's rustc (1.63) accepts. The linker is gcc by name:
// rustc's default, cc, is a link into /etc/alternatives, which a sandbox
// does not show. strip=debuginfo drops the standard library's debug
// info (4.5 MB of a 5 MB executable; symbols stay, so a backtrace still
// names functions): the build cache checks every file's SHA-256 on a hit,
// and an add solution's hit took 22 ms with it, 1-2 ms without.
//
// CompileHost and CompileSolution make the same executable in two steps:
// the host alone, once (the judge keeps Library in its build cache), then
// each solution, in a work dir holding Library, BinRoot and Source, in a
// fifth of Compile's time. They keep Compile's flags; -L . is where
// BinRoot's `extern crate tether` finds Library (not --extern, which would
// let a solution name `tether::` without `crate::`, as Compile does not).
var (
	rustc           = []string{"rustc", "--edition", "2021", "-O"}
	executable      = []string{"-C", "linker=gcc", "-C", "strip=debuginfo"}
	Compile         = slices.Concat(rustc, executable, []string{"-o", "main", CrateRoot})
	CompileHost     = slices.Concat(rustc, []string{"--crate-type", "rlib", "--crate-name", "tether", "-o", Library, HostUnit})
	CompileSolution = slices.Concat(rustc, executable, []string{"-L", ".", "-o", "main", BinRoot})
	Run             = []string{"./main"}
)
