package judge

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/sandbox/sandboxtest"
)

// roundTripSolutions are testdata/roundtrip's solutions, one per language:
// nothing but the declared echo functions, in that language's types.
// refused are the calls its host refuses (Rejected), as the evaluator
// lists them: values the language's types cannot hold; nulled the records
// echoed with null for an optional field left out.
var roundTripSolutions = []struct {
	id, file string
	refused  []string
	nulled   []string
}{
	{"python", "solution.py", nil, nil},
	{"cpp", "solution.cpp", nil, nil},
	{"c", "solution.c", []string{
		// a declared string is a const char *; a map's keys are too
		`echo_string('a\x00b') (a string with a NUL character does not fit a C string (const char *))`,
		`echo_string('\x00') (a string with a NUL character does not fit a C string (const char *))`,
		`echo_map({'a': 1, 'b': -9223372036854775808, 'é': 9223372036854775807, 'a\x00b': -1, '...) (args: a key with a NUL character is not supported)`,
	}, nil},
	{"java", "Solution.java", nil, nil},
	{"javascript", "solution.js", nil, nil},
	{"rust", "solution.rs", nil, nil},
	{"go", "solution.go", nil, []string{
		// a struct's nil pointer field is null, whether the field came absent or null
		`echo_shape({'name': '', 'at': {'x': 0, 'y': 0}, 'points': [], 'weight': 1e+300})`,
	}},
}

// Every type of the type language round-trips through every language's
// generated glue: testdata/roundtrip declares an echo function per type
// (integers at ±2^63, big integers to ±2^200, floats with -0.0 and the
// extremes, strings with NUL and beyond the BMP, bytes with every value,
// empty and nested lists and maps, optional absent and present, records
// nested and in a list, any) and its evaluator checks each echo exactly,
// types included, and that NaN and the infinities are refused before
// sending. One judged run per language (the values share it), the
// languages in parallel under the linux sandbox.
func TestDeclaredTypesRoundTripInEveryLanguage(t *testing.T) {
	runner := sandboxtest.Linux(t)
	p, err := LoadProblem(filepath.Join("testdata", "roundtrip"), nil)
	if err != nil {
		t.Fatal(err)
	}
	echoed := regexp.MustCompile(`^(\d+) values echoed((?:; refused: .*?)*)((?:; null for absent: .*?)*)$`)
	for _, s := range roundTripSolutions {
		t.Run(s.id, func(t *testing.T) {
			t.Parallel()
			requireToolchain(t, s.file)
			source, err := os.ReadFile(filepath.Join("testdata", "roundtrip", s.file))
			if err != nil {
				t.Fatal(err)
			}
			// The package's shared build cache: Go's standard library and
			// the C and C++ hosts' units compiled once for its tests.
			opts := &Options{Runner: runner, BuildCache: sharedBuildCache(t)}
			r, err := Run(context.Background(), p, &Submission{Path: s.file, Code: source}, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkResultSchema(t, r)
			if r.Compile != nil {
				t.Logf("compiled in %d ms (cached %v)", r.Compile.TimeMs, r.Compile.Cached)
			}
			wantStatus(t, r, Accepted)
			if r.Language != s.id {
				t.Errorf("judged as %q, want %q", r.Language, s.id)
			}
			msg, _ := details(t, r)["message"].(string)
			m := echoed.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("message %q: want the number of values echoed", msg)
			}
			var refused []string
			if m[2] != "" {
				refused = strings.Split(strings.TrimPrefix(m[2], "; refused: "), "; refused: ")
			}
			if !slices.Equal(refused, s.refused) {
				t.Errorf("refused %q\nwant %q", refused, s.refused)
			}
			var nulled []string
			if m[3] != "" {
				nulled = strings.Split(strings.TrimPrefix(m[3], "; null for absent: "), "; null for absent: ")
			}
			if !slices.Equal(nulled, s.nulled) {
				t.Errorf("records echoed with null for an absent field %q\nwant %q", nulled, s.nulled)
			}
			// Every value was a call the solution answered (NaN and the
			// infinities never left the evaluator).
			if n, _ := strconv.Atoi(m[1]); n < 100 || r.Calls.Count != n+len(refused) {
				t.Errorf("%s values echoed and %d refused in %d calls: want one call per value, over 100", m[1], len(refused), r.Calls.Count)
			}
		})
	}
	// The evaluator tells an echo that is equal but not the same apart: a
	// lost sign of -0.0, 1 for True, a float for a declared int.
	t.Run("near misses are WrongAnswer", func(t *testing.T) {
		t.Parallel()
		requireToolchain(t, "solution.py")
		source, err := os.ReadFile(filepath.Join("testdata", "roundtrip", "solution.py"))
		if err != nil {
			t.Fatal(err)
		}
		source = append(source, "\n\ndef echo_float(v):\n    return v if v != 0 else 0.0\n"+
			"\n\ndef echo_any(v):\n    return 1 if v is True else v\n"+
			"\n\ndef echo_int(v):\n    return float(v) if v == 0 else v\n"...)
		r, err := Run(context.Background(), p, &Submission{Path: "solution.py", Code: source}, &Options{Runner: runner})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, r, WrongAnswer)
		msg, _ := details(t, r)["message"].(string)
		for _, want := range []string{"3 of ", "echo_int(0) failed: echo_int returned a float, expected an integer",
			"echo_float(-0.0) returned 0.0", "echo_any(True) returned 1"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message %q: want %q", msg, want)
			}
		}
	})
}
