package suggest

import "testing"

func TestNearest(t *testing.T) {
	known := []string{"problem", "solution", "submission_id", "trace"}
	for _, c := range []struct {
		name, want string
		ok         bool
	}{
		{"soluton", "solution", true},
		{"Problem", "problem", true},
		{"submision_id", "submission_id", true},
		{"trcae", "trace", true},
		{"zzzzzzz", "", false},
	} {
		got, ok := Nearest(c.name, known)
		if got != c.want || ok != c.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if got := UnknownMessage("parameter", "zzzzzzz", known); got != "unknown parameter; known parameters here: problem, solution, submission_id, trace" {
		t.Errorf("no near name: %q", got)
	}
	if got := UnknownMessage("field", "x", nil); got != "unknown field; this object takes no fields" {
		t.Errorf("no fields: %q", got)
	}
}
