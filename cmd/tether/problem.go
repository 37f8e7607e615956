package main

import "github.com/spf13/cobra"

// newProblemCmd is the parent of the problem-setter tools (init, check,
// templates, client, pack); each subcommand lives in its own cmd/tether/problem_*.go
// file and is listed here.
func newProblemCmd(m machine) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "problem",
		Short: "Tools for problem setters: write, check and pack a problem folder",
		Long: `problem groups the tools a problem setter uses before a problem goes live:
init writes a working problem folder from a template, check validates
problem.json and judges every submission under submissions/ against the
verdict its folder names, templates writes contestants' starting files
from the declared functions, client writes a typed Go client of them for
an evaluator, and pack writes a support package.
The problem folder is described in docs/problem.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(
		newProblemInitCmd(),
		newProblemCheckCmd(m),
		newProblemTemplatesCmd(),
		newProblemClientCmd(),
		newProblemPackCmd(),
	)
	return cmd
}
