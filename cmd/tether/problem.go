package main

import "github.com/spf13/cobra"

// problemCmd is the parent of the problem-setter tools (init, check, templates, client, pack);
// each subcommand lives in its own cmd/tether/problem_*.go file and attaches
// itself here in its init.
var problemCmd = &cobra.Command{
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

func init() { rootCmd.AddCommand(problemCmd) }
