package judge_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/judge"
)

// FuzzProblemLM: any runtime_config.lm value is either read (an object kept
// as written, or a path inside the problem folder) or refused with
// ErrBadProblemJSON.
func FuzzProblemLM(f *testing.F) {
	for _, seed := range []string{`{"backends":{}}`, `"lm.json"`, `"/abs/lm.json"`, `""`, `null`, `3`, `[1]`, `"\u0000"`, `{`, `"../x"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		raw := []byte(`{"runtime_config":{"lm":` + value + `}}`)
		p := &judge.Problem{Dir: "/problems/p", Raw: raw}
		got, err := p.LM()
		if !json.Valid(raw) {
			if !errors.Is(err, judge.ErrBadProblemJSON) {
				t.Fatalf("invalid JSON %q: err = %v", raw, err)
			}
			return
		}
		if err != nil {
			if !errors.Is(err, judge.ErrBadProblemJSON) {
				t.Fatalf("%q: err = %v, want ErrBadProblemJSON", value, err)
			}
			return
		}
		if got.Inline != nil && !json.Valid(got.Inline) {
			t.Fatalf("%q: inline %q is not JSON", value, got.Inline)
		}
		if got.Path != "" && !filepath.IsLocal(got.Path) {
			t.Fatalf("%q: path %q is not inside the problem folder", value, got.Path)
		}
		if got.Inline != nil && got.Path != "" {
			t.Fatalf("%q: both inline and path", value)
		}
	})
}
