package judge

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParsePayload: any input either parses to a status that encodes (one
// of tether's or a plain identifier) with a score within ±2^53, or fails
// with ErrBadPayload; it never panics.
func FuzzParsePayload(f *testing.F) {
	for _, s := range []string{`{"status":"Accepted","score":10000,"details":{}}`, `{"status":"WrongAnswer","score":-1}`,
		`{"status":"x"}`, `not json`, `{"status":"Accepted","score":1e999}`, `{"status":"Accepted","details":null}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := ParsePayload(line)
		if err != nil {
			if !errors.Is(err, ErrBadPayload) {
				t.Fatalf("error %v does not wrap ErrBadPayload", err)
			}
			return
		}
		if _, err := p.Status.MarshalJSON(); err != nil || p.Score < -maxExactScore || p.Score > maxExactScore {
			t.Fatalf("ParsePayload(%q) = %+v", line, p)
		}
	})
}

// FuzzTailBuffer: the kept text is a suffix of everything written, at most
// max bytes, and starts on a character boundary when the input is UTF-8.
func FuzzTailBuffer(f *testing.F) {
	f.Add("héllo wörld", "€€€", uint8(7))
	f.Add("", "abc", uint8(1))
	f.Fuzz(func(t *testing.T, a, b string, max uint8) {
		if max == 0 {
			return
		}
		tb := newTailBuffer(int(max))
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
