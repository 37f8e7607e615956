package judge

import (
	"errors"
	"testing"
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
