package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/sandbox"
)

// doctorOptions are tether doctor's flags.
type doctorOptions struct {
	JSON          bool
	Smoke         bool   // build and start a small solution in each language found
	LanguagesFile string // check the languages of this languages file too
}

func newDoctorCmd(m machine) *cobra.Command {
	o := &doctorOptions{}
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
			table, err := languageTable(o.LanguagesFile)
			if err != nil {
				return err
			}
			f := doctorFindings{Diagnosis: m.diagnose()}
			var runner sandbox.Runner
			if o.Smoke {
				if r, _, err := m.selectSandbox(f.Diagnosis.Auto); err == nil {
					runner = r
					defer r.Close()
				}
			}
			f.Languages = checkLanguages(cmd.Context(), table, runner)
			return report(cmd.OutOrStdout(), o.JSON, f, func(w io.Writer, f doctorFindings) {
				printDiagnosis(w, f.Diagnosis)
				printLanguages(w, f.Languages)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.JSON, "json", false, "print the findings as one JSON object")
	f.BoolVar(&o.Smoke, "smoke", true, "build and start a small solution in each language found (in the sandbox auto picks)")
	f.StringVar(&o.LanguagesFile, "languages-file", "", "check the languages of this languages file too (docs/languages.md; env TETHER_LANGUAGES_FILE)")
	return cmd
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
