package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sig"
)

// problemClientOptions are tether problem client's flags.
type problemClientOptions struct {
	Language      string // the evaluator's language: go
	Package       string // the Go package the file belongs to
	Output        string // the file to write; "" or "-": stdout
	AllowCommands []string
}

func newProblemClientCmd() *cobra.Command {
	o := &problemClientOptions{}
	cmd := &cobra.Command{
		Use:   "client DIR [--language go] [--package NAME] [-o FILE]",
		Short: "Write the typed client of the problem's declared functions for a Go evaluator",
		Long: `client reads the functions DIR/problem.json declares ("functions", docs/problem.md)
and writes a Go file (to stdout, or FILE with -o) for the evaluator's
package (--package, default main): each record type as a struct, and a type
Client with a method per function, add(a: int, b: int) -> int becoming
  func (c Client) Add(ctx context.Context, a int64, b int64) (int64, error)
built on sdk/go/evaluator's Runner.CallDeclared (docs/sdk.md, "Typed client").
Run it again when the declaration changes, e.g. from a go:generate line:
  //go:generate tether problem client .. -o client.go
Python evaluators need no client: they call solution.add(1, 2).`,
		Args: exactArgs(1, "client takes DIR", "tether problem client myproblem -o myproblem/evaluator/client.go"),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := lang.Builtin().Lookup(o.Language)
			if err != nil {
				return fmt.Errorf("--language: %w", err)
			}
			if l.ID != "go" {
				return fmt.Errorf("--language %s: typed clients are generated for Go evaluators only; a Python evaluator calls solution.add(...) itself (docs/problem.md)", o.Language)
			}
			p, err := judge.LoadProblem(args[0], o.AllowCommands)
			if err != nil {
				return err
			}
			src, err := sig.GoClient(p.Functions, o.Package)
			if err != nil {
				return fmt.Errorf("problem client: %w", err)
			}
			if o.Output == "" || o.Output == "-" {
				_, err = cmd.OutOrStdout().Write(src)
				return err
			}
			if err := os.WriteFile(o.Output, src, 0o644); err != nil {
				return fmt.Errorf("problem client: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", o.Output)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Language, "language", "go", "the evaluator's language (go)")
	f.StringVar(&o.Package, "package", "main", "the Go package the file belongs to")
	f.StringVarP(&o.Output, "output", "o", "", "write the file here instead of stdout (generated: it is replaced)")
	addAllowCommandFlag(f, &o.AllowCommands, "")
	return cmd
}
