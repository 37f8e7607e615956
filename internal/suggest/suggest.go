// Package suggest names the known name a user probably meant when they
// wrote an unknown one: a misspelt problem.json field, judge.run
// parameter or command-line flag. One implementation, so that every place
// that suggests agrees on what counts as a typo.
package suggest

import (
	"strconv"
	"strings"
)

// Nearest is the name of known nearest to name by edit distance (ignoring
// case), when it is near enough to be a typo: at most 2 edits, or a third
// of name's length for longer names.
func Nearest(name string, known []string) (string, bool) {
	best, bestDist := "", -1
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" || bestDist > max(2, len(name)/3) {
		return "", false
	}
	return best, true
}

// UnknownMessage says that a field (what: "field", "parameter") is unknown
// and which known one was probably meant, else lists the known ones.
func UnknownMessage(what, name string, known []string) string {
	if best, ok := Nearest(name, known); ok {
		return "unknown " + what + "; did you mean " + strconv.Quote(best) + "?"
	}
	if len(known) == 0 {
		return "unknown " + what + "; this object takes no " + what + "s"
	}
	return "unknown " + what + "; known " + what + "s here: " + strings.Join(known, ", ")
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
