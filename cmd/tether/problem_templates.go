package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/lang"
	"github.com/tether-dev/tether/sig"
)

// templatesDir is where a problem's starting files live, beside problem.json;
// tether problem pack includes them like every file of the folder.
const templatesDir = "templates"

// problemTemplatesOptions are tether problem templates' flags.
type problemTemplatesOptions struct {
	Language      string // write only this language's template; "": every language's
	Force         bool   // replace templates that exist
	AllowCommands []string
}

func newProblemTemplatesCmd() *cobra.Command {
	o := &problemTemplatesOptions{}
	cmd := &cobra.Command{
		Use:   "templates DIR [--language L]",
		Short: "Write a starting file per language from the problem's declared functions",
		Long: `templates reads the functions DIR/problem.json declares ("functions", docs/problem.md)
and writes DIR/templates/template.<ext> for each language that has one (now: ` + fmt.Sprint(sig.TemplateLanguages) + `):
every declared function with its description and a body that compiles and
returns a default, so a contestant fills in only the bodies. Judged as it
comes, a template gets WrongAnswer, not CompileError. Files that exist are
kept unless --force. tether problem pack includes the folder.`,
		Args: exactArgs(1, "templates takes DIR", "tether problem templates myproblem --language cpp"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := judge.LoadProblem(args[0], o.AllowCommands)
			if err != nil {
				return err
			}
			var ids []string
			if o.Language != "" {
				l, err := lang.Builtin().Lookup(o.Language)
				if err != nil {
					return fmt.Errorf("--language: %w", err)
				}
				ids = []string{l.ID}
			}
			written, err := writeTemplates(p.Dir, p.Functions, ids, o.Force)
			for _, f := range written {
				fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", f)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Language, "language", "", "write only this language's template (an id or alias, docs/languages.md)")
	f.BoolVar(&o.Force, "force", false, "replace templates that exist")
	addAllowCommandFlag(f, &o.AllowCommands, "")
	return cmd
}

// writeTemplates writes the templates of d for languages (nil: all) into
// dir/templates and returns the paths written, relative to dir. An
// existing file is an error unless force.
func writeTemplates(dir string, d *sig.Declaration, languages []string, force bool) ([]string, error) {
	ts, err := sig.Templates(d, languages)
	if err != nil {
		return nil, fmt.Errorf("problem templates: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, templatesDir), 0o755); err != nil {
		return nil, fmt.Errorf("problem templates: %w", err)
	}
	var written []string
	for _, t := range ts {
		rel := filepath.Join(templatesDir, t.File)
		flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
		if force {
			flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		}
		f, err := os.OpenFile(filepath.Join(dir, rel), flags, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return written, fmt.Errorf("problem templates: %s exists; --force replaces it", rel)
		}
		if err != nil {
			return written, fmt.Errorf("problem templates: %w", err)
		}
		_, err = f.Write(t.Text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return written, fmt.Errorf("problem templates: writing %s: %w", rel, err)
		}
		written = append(written, filepath.ToSlash(rel))
	}
	return written, nil
}
