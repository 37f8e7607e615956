package frame

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/codec"
)

// appendString's shortcut for plain ASCII must write what the codec writes.
func TestAppendStringMatchesCodec(t *testing.T) {
	var all strings.Builder
	for c := range 0x80 {
		all.WriteByte(byte(c))
	}
	cases := []string{"", "add", "0e230c36b0d040119b5437fe13c2bdb8", "a<b>&c", `q"uote`, `back\slash`,
		"tab\there", "del\x7f", "héllo", "bad \xff", all.String()}
	for c := range 0x80 {
		cases = append(cases, "x"+string(rune(c))+"y")
	}
	for _, s := range cases {
		got := appendString([]byte("prefix"), s)
		want, err := codec.Append([]byte("prefix"), s)
		if err != nil {
			continue // invalid UTF-8 takes the replacement path, not the shortcut
		}
		if string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, codec gives %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("add")
	f.Add(`a"b\c`)
	f.Fuzz(func(t *testing.T, s string) {
		want, err := codec.Append(nil, s)
		if got := appendString(nil, s); err == nil && string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, codec gives %s", s, got, want)
		}
	})
}
