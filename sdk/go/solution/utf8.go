package solution

import "strings"

// validUTF8 is b as text, invalid bytes replaced (a log frame is a string).
func validUTF8(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }
