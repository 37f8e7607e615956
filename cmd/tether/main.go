// Command tether runs untrusted code beside trusted code and lets the two
// call each other through framed JSON. Each subcommand lives in its own file
// and only wires packages together.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

var rootCmd = &cobra.Command{
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
}

func main() {
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "tether:", err)
		os.Exit(2)
	}
}
