// Command tether runs untrusted code beside trusted code and lets the two
// call each other through framed JSON. Each subcommand lives in its own file,
// built by its constructor (newRootCmd lists them), and only wires packages
// together.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tether-dev/tether/internal/suggest"
	"github.com/tether-dev/tether/sandbox"
)

// newRootCmd builds tether's command tree: each call makes a tree of its
// own, every flag bound to a field of its command's options, so two trees
// (two tests) share nothing. A command is added by writing its
// constructor, newXCmd in x.go, and listing it here (a problem tool: in
// newProblemCmd).
func newRootCmd(m machine) *cobra.Command {
	root := &cobra.Command{
		Use:   "tether",
		Short: "Run untrusted code beside trusted code, joined by framed JSON",
		Long: `tether runs a problem's trusted evaluator and an untrusted solution, each in
its own sandbox, and relays newline-delimited JSON frames between them: the
evaluator calls the solution's functions, the solution may call capabilities
the evaluator offers, and the evaluator's result becomes a verdict.

It also serves language-model completions to sandboxed code over rlm's
length-prefixed JSON (keys stay on the host), and offers both over JSON-RPC 2.0.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// tether --version prints the same text as tether version.
		Version: strings.TrimSuffix(versionText(), "\n"),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(suggestFlag)
	root.AddCommand(
		newJudgeCmd(m),
		newSubmitCmd(),
		newResultCmd(),
		newWorkerCmd(m),
		newServeCmd(m),
		newLMCmd(),
		newProblemCmd(m),
		newTraceCmd(),
		newDoctorCmd(m),
		newVersionCmd(),
	)
	return root
}

// machine is what the commands ask of the machine they run on; tests pass
// their own to play a machine without the linux sandbox, or another
// doctor's findings.
type machine struct {
	// selectSandbox is sandbox.Select: the runner of a --sandbox kind.
	selectSandbox func(kind string) (runner sandbox.Runner, warning string, err error)
	// diagnose is sandbox.Diagnose: what tether doctor reports.
	diagnose func() sandbox.Diagnosis
}

// thisMachine is the machine tether runs on.
var thisMachine = machine{selectSandbox: sandbox.Select, diagnose: sandbox.Diagnose}

// suggestFlag adds the nearest flag of the command to an unknown flag's
// error ("unknown flag: --sandox; did you mean --sandbox?"), with the
// suggestion rule problem.json's fields and judge.run's parameters use.
func suggestFlag(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var known []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			known = append(known, f.Name)
		}
	})
	if best, ok := suggest.Nearest(name, known); ok {
		return fmt.Errorf("%w; did you mean --%s?", err, best)
	}
	return err
}

func main() {
	if err := newRootCmd(thisMachine).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "tether:", err)
		os.Exit(2)
	}
}

// report writes v to w for a command's --json (one indented JSON object),
// or through print for people.
func report[T any](w io.Writer, asJSON bool, v T, print func(io.Writer, T)) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	print(w, v)
	return nil
}

// exactArgs is a command's Args check: exactly n arguments, else an error
// saying what the command takes and, if example is not empty, how it is
// called.
func exactArgs(n int, takes, example string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if example != "" {
			return fmt.Errorf("%s, got %d argument(s); e.g. %s", takes, len(args), example)
		}
		return fmt.Errorf("%s, got %d argument(s)", takes, len(args))
	}
}
