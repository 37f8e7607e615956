package lang

import (
	"regexp"
	"strings"

	"github.com/tether-dev/tether/internal/tail"
)

// compilerMessages is the kept tail of what a compiler printed (the last
// max bytes of tail.Buffer, in at most 2*max of memory however much it
// prints), with a line saying that the head was cut when it was.
func compilerMessages(kept *tail.Buffer) string {
	s := kept.String()
	if kept.Cut() {
		return "[earlier compiler messages cut]\n" + s
	}
	return s
}

// cleanMessages makes a compiler's messages safe to show: invalid UTF-8
// replaced, and the host's build dir, wherever it appears, shown as paths
// relative to the submission ("main.cpp:3:5: error: ...").
func cleanMessages(s, buildDir string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if buildDir == "" {
		return s
	}
	r := strings.NewReplacer(buildDir+"/", "", buildDir, ".")
	s = r.Replace(s)
	// The build dir's parent (the judge's temp dir) must not leak either,
	// nor the sandbox's private work dir (the compiler's TMPDIR: the
	// linker names its temporary objects).
	if parent := parentDir(buildDir); parent != "" && parent != "/" {
		s = strings.ReplaceAll(s, parent, "…")
	}
	s = sandboxDirs.ReplaceAllString(s, "…")
	return strings.TrimRight(s, "\n")
}

// sandboxDirs match a host path of a sandbox's or the judge's temp dirs.
var sandboxDirs = regexp.MustCompile(`(/[^\s:'"‘’/]+)*/tether-[^\s:'"‘’/]*`)

func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return ""
	}
	return p[:i]
}
