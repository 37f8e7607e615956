package backend

import (
	"strings"
	"testing"
)

// FuzzWords: words counts what strings.Fields splits.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"", "one", "  two  words ", "tab\tnew\nline\v\f\r", "nbsp\u00a0next\u0085x", "\xff \x85 é", "\u2003em space"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := words(s), int64(len(strings.Fields(s))); got != want {
			t.Fatalf("%q: %d words, strings.Fields %d", s, got, want)
		}
	})
}
