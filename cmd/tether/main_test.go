package main

import "testing"

// A wrong number of arguments is told in the user's terms: what the
// command takes, how many it got and, where there is one, an example.
func TestExactArgsSaysWhatTheCommandTakes(t *testing.T) {
	for _, c := range []struct {
		example string
		args    []string
		want    string
	}{
		{"tether x a", []string{"a"}, ""},
		{"tether x a", nil, "x takes A, got 0 argument(s); e.g. tether x a"},
		{"", []string{"a", "b"}, "x takes A, got 2 argument(s)"},
	} {
		got := "" // no error
		if err := exactArgs(1, "x takes A", c.example)(nil, c.args); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%q: error %q, want %q", c.args, got, c.want)
		}
	}
}

// A misspelt flag is answered with the nearest flag of its command.
func TestUnknownFlagNamesTheNearest(t *testing.T) {
	_, err := runCLI(t, "version", "--jsno")
	if err == nil || err.Error() != "unknown flag: --jsno" {
		// version has no flag near --jsno: the error stays as it was
		t.Fatalf("version --jsno: %v", err)
	}
	_, err = runCLI(t, "result", "x", "--brokr", "embedded")
	if err == nil || err.Error() != "unknown flag: --brokr; did you mean --broker?" {
		t.Fatalf("result --brokr: %v", err)
	}
}
