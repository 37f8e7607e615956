package judge

import "unicode/utf8"

// MaxResultLogBytes bounds the solution's logs in a result, counted as
// they are encoded in it (entryOverhead per entry for keys and
// indentation), so a solution cannot grow the result by sending text
// that costs more to encode than to send (`<` is six bytes in JSON).
const MaxResultLogBytes = 1 << 20

// entryOverhead is what one kept entry costs in an indented result
// beyond its two strings: braces, keys, indentation, separators.
const entryOverhead = 64

// logKeeper keeps the solution's log frames the relay kept, while they fit
// in MaxResultLogBytes; the rest are counted. Not safe for concurrent use.
type logKeeper struct {
	kept    []LogEntry
	bytes   int
	dropped int
}

func (k *logKeeper) add(stream string, data []byte) {
	cost := entryOverhead + jsonStringLen(stream) + jsonStringLen(string(data))
	if k.bytes+cost > MaxResultLogBytes {
		k.dropped++
		return
	}
	k.bytes += cost
	k.kept = append(k.kept, LogEntry{Stream: stream, Data: string(data)})
}

// jsonStringLen is the most bytes encoding/json may write for s as a JSON
// string, quotes included: HTML-escaped <, > and &, control characters,
// U+2028 and U+2029 and each invalid byte are six bytes each.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}
