package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
)

// problemTemplates are the folders tether problem init copies; each is a
// working problem whose submissions/ tree passes tether problem check.
//
//go:embed all:problemtemplates
var problemTemplates embed.FS

func templateNames() []string {
	entries, _ := problemTemplates.ReadDir("problemtemplates")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// problemInitOptions are tether problem init's flags.
type problemInitOptions struct {
	Template string // the template to start from (templateNames)
	Language string // also write the template and submissions in this language
}

func newProblemInitCmd() *cobra.Command {
	o := &problemInitOptions{}
	cmd := &cobra.Command{
		Use:   "init DIR [--template aplusb|capability|interactive|llm]",
		Short: "Write a working problem folder to start from",
		Long: `init writes a new problem folder: problem.json, evaluate.py (the trusted
evaluator), template.py (what contestants start from) and a submissions/
tree of solutions by expected verdict, so that tether problem check DIR
passes at once. Templates:

  aplusb       the evaluator calls a pure function on fixed cases
  interactive  a stateful solution: new_game, guess, feedback
  capability   the solution calls a function the evaluator offers
  llm          the solution asks a language model through the evaluator

--language cpp also writes template.cpp and C++ submissions beside the
Python ones (where the template has them). DIR must not exist yet, or be
empty. The folder is described in docs/problem.md.`,
		Args: exactArgs(1, "init takes DIR", "tether problem init myproblem --template interactive"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProblemInit(cmd, o, args[0])
		},
	}
	cmd.Flags().StringVar(&o.Template, "template", "aplusb", "what to start from: "+strings.Join(templateNames(), ", "))
	cmd.Flags().StringVar(&o.Language, "language", "", "also write the template and submissions in this language (docs/languages.md), e.g. cpp")
	return cmd
}

func runProblemInit(cmd *cobra.Command, o *problemInitOptions, dir string) error {
	tmpl := o.Template
	if !slices.Contains(templateNames(), tmpl) {
		return fmt.Errorf("--template %q: want one of %s", tmpl, strings.Join(templateNames(), ", "))
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("problem init: %s is not empty; give a new folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("problem init: %w", err)
	}
	root := "problemtemplates/" + tmpl
	roots := []string{root}
	if name := o.Language; name != "" {
		l, err := lang.Builtin().Lookup(name)
		if err != nil {
			return fmt.Errorf("--language: %w", err)
		}
		overlay := root + "/lang/" + l.ID
		if _, err := fs.Stat(problemTemplates, overlay); err != nil && l.ID != "python" {
			return fmt.Errorf("--language %s: the %s template has no %s files yet (its evaluator works with any language; write the solution yourself)", name, tmpl, l.ID)
		} else if err == nil {
			roots = append(roots, overlay)
		}
	}
	var written []string
	for _, root := range roots {
		err := fs.WalkDir(problemTemplates, root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if path == roots[0]+"/lang" {
				return fs.SkipDir // the languages' files, written only when asked for
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(path, root), "/")
			target := filepath.Join(dir, filepath.FromSlash(rel))
			if d.IsDir() {
				return os.MkdirAll(target, 0o755)
			}
			data, err := problemTemplates.ReadFile(path)
			if err != nil {
				return err
			}
			written = append(written, rel)
			return os.WriteFile(target, data, 0o644)
		})
		if err != nil {
			return fmt.Errorf("problem init: %w", err)
		}
	}
	// A problem that declares its functions gets the starting files made
	// from them (tether problem templates).
	if p, err := judge.LoadProblem(dir, nil); err == nil && p.Functions != nil {
		made, err := writeTemplates(dir, p.Functions, nil, false)
		if err != nil {
			return err
		}
		written = append(written, made...)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "wrote %s from the %s template:\n", dir, tmpl)
	for _, f := range written {
		fmt.Fprintf(out, "  %s\n", f)
	}
	fmt.Fprintf(out, "next: edit evaluate.py and the submissions, then run tether problem check %s\n", dir)
	return nil
}
