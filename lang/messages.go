package lang

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// tailWriter keeps the last max bytes written to it, in at most 2*max of
// memory, however much a compiler prints.
type tailWriter struct {
	max     int
	buf     []byte
	dropped bool
}

func (t *tailWriter) Write(p []byte) (int, error) {
	n := len(p)
	if t.max <= 0 {
		return n, nil
	}
	if len(p) >= t.max {
		t.dropped = t.dropped || len(t.buf) > 0 || len(p) > t.max
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	if len(t.buf)+len(p) > 2*t.max {
		keep := t.max - len(p)
		copy(t.buf, t.buf[len(t.buf)-keep:])
		t.buf = t.buf[:keep]
		t.dropped = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String is the kept tail, starting on a character boundary, with a line
// saying that the head was cut when it was.
func (t *tailWriter) String() string {
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		t.dropped = true
	}
	if !t.dropped {
		return string(b)
	}
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return "[earlier compiler messages cut]\n" + string(b)
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
