package frame

// frameTypes are the frame types of docs/protocol/judge.md; Parse returns these strings
// instead of allocating a copy of the line's bytes for every frame.
var frameTypes = [...]string{"call", "result", "error", "capability", "cap_reg", "log", "ready"}

// internType returns s as a string, shared for the known frame types.
func internType(s []byte) string {
	for _, t := range frameTypes {
		if string(s) == t {
			return t
		}
	}
	return string(s)
}

// smallValue decodes the values a call most often carries without the
// codec: an integer of at most 18 digits (which always fits int64, so the
// codec gives int64 too), or a flat list of such integers, sized exactly.
// It reports false for anything else (floats, strings, nesting, white space
// inside the list, bad JSON), and the codec decodes that instead; when it
// reports true the value is the one codec.Unmarshal returns
// (FuzzParseEnvelope checks this through Parse).
func smallValue(b []byte) (any, bool) {
	if len(b) == 0 {
		return nil, false
	}
	if b[0] != '[' {
		n, end, ok := smallInt(b, 0)
		if !ok || end != len(b) {
			return nil, false
		}
		return n, true
	}
	if len(b) < 2 || b[len(b)-1] != ']' {
		return nil, false
	}
	if len(b) == 2 {
		return []any{}, true
	}
	count := 1
	for _, c := range b[1 : len(b)-1] {
		if c == ',' {
			count++
		}
	}
	list := make([]any, 0, count)
	for i := 1; ; {
		n, end, ok := smallInt(b, i)
		if !ok || end >= len(b) {
			return nil, false
		}
		list = append(list, n)
		switch b[end] {
		case ',':
			i = end + 1
		case ']':
			if end != len(b)-1 {
				return nil, false
			}
			return list, true
		default:
			return nil, false
		}
	}
}

// smallInt reads a JSON integer of 1 to 18 digits at b[i] (no fraction or
// exponent may follow) and returns it with the offset after it.
func smallInt(b []byte, i int) (n int64, end int, ok bool) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	digits := i - start
	if digits == 0 || digits > 18 || (b[start] == '0' && digits > 1) {
		return 0, i, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, i, false
	}
	if neg {
		n = -n
	}
	return n, i, true
}
