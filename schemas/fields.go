package schemas

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the validator's own messages for the rare keywords
// issuesOf does not word itself.
var printer = message.NewPrinter(language.English)

// knownFields lists the properties a schema object declares; schemaURL is
// the location of its failed additionalProperties keyword.
func knownFields(doc any, schemaURL string) []string {
	_, frag, ok := strings.Cut(schemaURL, "#")
	if !ok {
		return nil
	}
	frag = strings.TrimSuffix(frag, "/additionalProperties")
	node := doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			node = n[i]
		default:
			return nil
		}
	}
	obj, _ := node.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// unknownMessage says that field is unknown and which known one was
// probably meant: the nearest by edit distance, when it is near enough to
// be a typo, else the list of known fields.
func unknownMessage(field string, known []string) string {
	best, bestDist := "", -1
	for _, k := range known {
		if d := editDistance(strings.ToLower(field), strings.ToLower(k)); bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" && bestDist <= max(2, len(field)/3) {
		return "unknown field; did you mean " + strconv.Quote(best) + "?"
	}
	if len(known) == 0 {
		return "unknown field; this object takes no fields"
	}
	return "unknown field; known fields here: " + strings.Join(known, ", ")
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
