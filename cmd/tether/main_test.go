package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

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

// runTether runs tether with args in this process, on a command tree of
// its own built for m, with stdin in (nil: os.Stdin) and its output to out
// and errOut.
func runTether(ctx context.Context, m machine, in io.Reader, out, errOut io.Writer, args ...string) error {
	root := newRootCmd(m)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// runCLI runs tether with args in this process and returns its stdout
// and stderr together.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := runTether(context.Background(), thisMachine, nil, &out, &out, args...)
	return out.String(), err
}

// Two trees built side by side share no flag: every flag of one, set away
// from its default, leaves the other's at its default, so tests that each
// build a tree may run in parallel.
func TestTwoTreesShareNoFlags(t *testing.T) {
	first, second := newRootCmd(thisMachine), newRootCmd(thisMachine)
	set := 0
	forEachFlag(first, func(c *cobra.Command, f *pflag.Flag) {
		if err := f.Value.Set(notDefault(f)); err != nil {
			t.Fatalf("%s --%s: %v", c.CommandPath(), f.Name, err)
		}
		if f.Value.String() == f.DefValue {
			t.Fatalf("%s --%s: setting %q left it at its default", c.CommandPath(), f.Name, notDefault(f))
		}
		set++
	})
	if set < 100 {
		t.Fatalf("only %d flags set", set)
	}
	forEachFlag(second, func(c *cobra.Command, f *pflag.Flag) {
		if got := f.Value.String(); got != f.DefValue {
			t.Errorf("%s --%s is %q in a fresh tree after another tree's was set, want its default %q", c.CommandPath(), f.Name, got, f.DefValue)
		}
	})
}

// forEachFlag calls fn for each flag of c and its subcommands, the ones
// cobra adds (help, version) left out.
func forEachFlag(c *cobra.Command, fn func(*cobra.Command, *pflag.Flag)) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && f.Name != "version" {
			fn(c, f)
		}
	})
	for _, sub := range c.Commands() {
		forEachFlag(sub, fn)
	}
}

// notDefault is a value of f's type other than its default.
func notDefault(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "bool":
		if f.DefValue == "true" {
			return "false"
		}
		return "true"
	case "int", "int64":
		return "7"
	case "duration":
		return "7s"
	default: // strings and lists of them
		return "other"
	}
}
