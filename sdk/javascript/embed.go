// Package jssdk carries the JavaScript (Node.js 18+) solution host,
// host.js, inside the tether binary. A solution exports its functions
// (module.exports = { add } or export function add), or, for functions
// declared in problem.json, only defines them at top level (package sig
// appends what hands them to the host, and `node host.js --check` is the
// compile step); the host loads it and serves the evaluator's calls
// (docs/languages.md, "JavaScript").
package jssdk

import (
	"embed"
	"io/fs"

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

//go:embed src/host.js
var embedded embed.FS

var sdk = sdkfs.Embed(embedded, "src", "jssdk")

// Host is the host's file name.
const Host = "host.js"

// Run starts the solution {source} (main.js, or main.mjs for an ES
// module) in the work dir that holds the files WriteTo wrote. There is no
// compile step.
var Run = []string{"node", Host, "{source}"}

// FS returns the embedded files, "host.js" at its root.
func FS() fs.FS { return sdk.FS() }

// WriteTo writes the host's files into dir (see sdkfs.WriteTo).
func WriteTo(dir string) error { return sdk.WriteTo(dir) }

// Version names the files' content (for a build cache's key).
var Version = sdk.Version
