package frame

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/codec"
)

// appendString writes what the codec writes; invalid UTF-8 (which the
// codec refuses) comes out mended, a bad run as one U+FFFD.
func TestAppendStringMatchesCodec(t *testing.T) {
	var all strings.Builder
	for c := range 0x80 {
		all.WriteByte(byte(c))
	}
	cases := []string{"", "add", "0e230c36b0d040119b5437fe13c2bdb8", "a<b>&c", `q"uote`, `back\slash`,
		"tab\there", "del\x7f", "héllo", "bad \xff", "bad run \xff\xfe<", all.String()}
	for c := range 0x80 {
		cases = append(cases, "x"+string(rune(c))+"y")
	}
	for _, s := range cases {
		got := appendString([]byte("prefix"), s)
		want, err := codec.Append([]byte("prefix"), strings.ToValidUTF8(s, "\uFFFD"))
		if err != nil {
			t.Fatalf("codec.Append(%q): %v", s, err)
		}
		if string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, codec gives %s", s, got, want)
		}
	}
}

// A program's output that is not UTF-8 (the solution host forwards what it
// prints as it is) still makes a log frame the judge reads.
func TestLogMendsInvalidUTF8(t *testing.T) {
	got, want := string(Log("stdout", "bad run \xff\xfe<")), `{"type":"log","stream":"stdout","data":"bad run `+"\uFFFD"+`<"}`
	if got != want {
		t.Errorf("Log = %s, want %s", got, want)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("add")
	f.Add(`a"b\c`)
	f.Fuzz(func(t *testing.T, s string) {
		want, err := codec.Append(nil, strings.ToValidUTF8(s, "\uFFFD"))
		if got := appendString(nil, s); err != nil || string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, codec gives %s", s, got, want)
		}
	})
}
