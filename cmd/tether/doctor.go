package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/sandbox"
)

// diagnose is sandbox.Diagnose; tests replace it to play another machine.
var diagnose = sandbox.Diagnose

func init() {
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what isolation this machine offers, and what fixes the rest",
		Long: `doctor checks what each sandbox needs (root, user namespaces, cgroups and
their controllers, seccomp, Landlock, Python, outbound networking for
sandboxes that ask for the network) and whether each sandbox can be
made here, says which one --sandbox auto picks, and for each missing piece
prints the command that fixes it. Then it lists each language
(docs/languages.md) with its compiler or runtime version, found or missing,
and a compile+run smoke test. It exits 0 whatever it finds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, _ := cmd.Flags().GetBool("json")
			table, err := languageTable(cmd)
			if err != nil {
				return err
			}
			f := doctorFindings{Diagnosis: diagnose()}
			var runner sandbox.Runner
			if smoke, _ := cmd.Flags().GetBool("smoke"); smoke {
				if r, _, err := selectSandbox(f.Diagnosis.Auto); err == nil {
					runner = r
					defer r.Close()
				}
			}
			f.Languages = checkLanguages(cmd.Context(), table, runner)
			return report(cmd.OutOrStdout(), asJSON, f, func(w io.Writer, f doctorFindings) {
				printDiagnosis(w, f.Diagnosis)
				printLanguages(w, f.Languages)
			})
		},
	}
	cmd.Flags().Bool("json", false, "print the findings as one JSON object")
	cmd.Flags().Bool("smoke", true, "build and start a small solution in each language found (in the sandbox auto picks)")
	cmd.Flags().String("languages-file", "", "check the languages of this languages file too (docs/languages.md; env TETHER_LANGUAGES_FILE)")
	rootCmd.AddCommand(cmd)
}

// doctorFindings are the sandbox's findings and each language's.
type doctorFindings struct {
	sandbox.Diagnosis
	Languages []languageCheck `json:"languages"`
}

func printDiagnosis(w io.Writer, d sandbox.Diagnosis) {
	if d.Warning != "" {
		announceSandbox(w, nil, d.Warning)
	}
	fmt.Fprintf(w, "--sandbox auto picks: %s\n\n", d.Auto)
	for _, s := range d.Sandboxes {
		state := "available"
		if !s.Available {
			state = "NOT available"
		}
		fmt.Fprintf(w, "  %-9s %s", s.Kind, state)
		if s.Why != "" {
			fmt.Fprintf(w, ": %s", s.Why)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, c := range d.Checks {
		mark := "ok     "
		if !c.OK {
			mark = "MISSING"
		}
		fmt.Fprintf(w, "  %s %-16s %s\n", mark, c.Name, c.Found)
		if c.Fix != "" {
			fmt.Fprintf(w, "          fix: %s\n", c.Fix)
		}
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "\n  note: %s\n", n)
	}
}
