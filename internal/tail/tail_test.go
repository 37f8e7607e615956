package tail

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeepsTailOnCharBoundary(t *testing.T) {
	tb := New(10)
	tb.Write([]byte("abc"))
	if tb.String() != "abc" {
		t.Fatalf("%q", tb.String())
	}
	tb.Write([]byte("défghijk")) // 9 bytes; total 12 > 10: "a","b" cut
	if got := tb.String(); got != "cdéfghijk" {
		t.Fatalf("%q", got)
	}
	tb.Write([]byte("éx")) // the cut lands inside the first "é": its tail byte is dropped
	if got := tb.String(); got != "fghijkéx" || !utf8.ValidString(got) {
		t.Fatalf("%q", got)
	}
	big := strings.Repeat("€", 100) // 300 bytes in one write
	tb.Write([]byte(big))
	if got := tb.String(); got != "€€€" {
		t.Fatalf("%q", got)
	}
	for range 1000 { // memory stays within 2*max
		tb.Write([]byte("0123456"))
	}
	if cap(tb.buf) > 64 || tb.String() != "6012345601234560123456"[12:] {
		t.Fatalf("cap %d string %q", cap(tb.buf), tb.String())
	}
}

// FuzzBuffer: the kept text is a suffix of everything written, at most
// max bytes, and starts on a character boundary when the input is UTF-8.
func FuzzBuffer(f *testing.F) {
	f.Add("héllo wörld", "€€€", uint8(7))
	f.Add("", "abc", uint8(1))
	f.Fuzz(func(t *testing.T, a, b string, max uint8) {
		if max == 0 {
			return
		}
		tb := New(int(max))
		tb.Write([]byte(a))
		tb.Write([]byte(b))
		all, got := a+b, tb.String()
		if !strings.HasSuffix(all, got) || len(got) > int(max) || len(got) < min(len(all), int(max))-utf8.UTFMax+1 {
			t.Fatalf("tail of %q (max %d) = %q", all, max, got)
		}
		if utf8.ValidString(all) && !utf8.ValidString(got) {
			t.Fatalf("tail %q of valid UTF-8 is not valid", got)
		}
	})
}

func TestNoRoomKeepsNothing(t *testing.T) {
	for _, max := range []int{0, -1} {
		tb := New(max)
		if n, err := tb.Write([]byte("abc")); n != 3 || err != nil {
			t.Fatalf("Write = %d, %v; want 3, nil", n, err)
		}
		if tb.String() != "" || tb.Len() != 0 || tb.Cut() {
			t.Fatalf("a buffer of max %d kept %q (cut %v)", max, tb.String(), tb.Cut())
		}
	}
}

func TestCut(t *testing.T) {
	tb := New(4)
	tb.Write([]byte("abcd"))
	if tb.Cut() {
		t.Fatal("Cut after writing exactly max bytes")
	}
	tb.Write([]byte("e"))
	if !tb.Cut() || tb.String() != "bcde" {
		t.Fatalf("Cut %v, String %q after max+1 bytes; want true, bcde", tb.Cut(), tb.String())
	}
}
