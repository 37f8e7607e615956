package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/tether-dev/tether/judge"
	"github.com/tether-dev/tether/supportpkg"
)

// problemPackOptions are tether problem pack's flags.
type problemPackOptions struct {
	Output        string // the zip to write; "": the folder's name + .zip, here
	JSON          bool
	AllowCommands []string
}

func newProblemPackCmd() *cobra.Command {
	o := &problemPackOptions{}
	cmd := &cobra.Command{
		Use:   "pack DIR -o FILE.zip",
		Short: "Write a problem folder as a support package (zip) and print its sha256 and URL",
		Long: `pack checks the problem's problem.json, then writes the folder as a Neuro OJ
support package: its files at the zip's root (problem.json, evaluate.py, data),
without hidden files, __pycache__, *.pyc or the submissions/ tree. The same
folder always packs to the same bytes. It prints the zip's SHA-256 and the
noj-download://base64 URL a judge task's download_url can carry (the whole
zip in the URL; docs/packages.md has the other forms, the caps and the cache).`,
		Args: exactArgs(1, "pack takes one problem folder", "tether problem pack examples/aplusb -o aplusb.zip"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPack(cmd, o, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "the zip to write (default: the folder's name + .zip, here)")
	f.BoolVar(&o.JSON, "json", false, `print {"file", "bytes", "sha256", "url"} as JSON`)
	addAllowCommandFlag(f, &o.AllowCommands, "")
	return cmd
}

func runPack(cmd *cobra.Command, o *problemPackOptions, dir string) error {
	out := o.Output
	if _, err := judge.LoadProblem(dir, o.AllowCommands); err != nil {
		return err
	}
	if out == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		out = filepath.Base(abs) + ".zip"
	}
	var zip bytes.Buffer
	sum, err := supportpkg.Pack(dir, &zip)
	if err != nil {
		return err
	}
	// A temp file renamed into place: an interrupted pack leaves no half zip
	// under the name a deployment would upload.
	tmp, err := os.CreateTemp(filepath.Dir(out), ".pack-*.zip")
	if err != nil {
		return fmt.Errorf("pack: cannot write next to %s: %w", out, err)
	}
	_, err = tmp.Write(zip.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("pack: writing %s: %w", out, err)
	}
	url := supportpkg.Base64URL(zip.Bytes())
	w := cmd.OutOrStdout()
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false) // the URL's '&' stays an '&'
		return enc.Encode(map[string]any{"file": out, "bytes": zip.Len(), "sha256": sum, "url": url})
	}
	fmt.Fprintf(w, "wrote %s (%d bytes)\nsha256: %s\nurl: %s\n", out, zip.Len(), sum, url)
	return nil
}
