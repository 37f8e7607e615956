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

	"github.com/tether-dev/tether/sdk/internal/sdkfs"
)

//go:embed src/host.js
var embedded embed.FS

// Files are the host's files as the binary carries them: Files.FS() has
// "host.js" at its root, Files.WriteTo(dir) writes them into a work dir
// (sdkfs.WriteTo), and Files.Version names their content (a build cache's
// key).
var Files = sdkfs.Embed(embedded, "src", "jssdk")

// Host is the host's file name.
const Host = "host.js"

// Run starts the solution {source} (main.js, or main.mjs for an ES
// module) in the work dir that holds the files Files.WriteTo wrote. There is no
// compile step.
var Run = []string{"node", Host, "{source}"}
