// Package docs_test checks that the repository documents itself: nothing
// points at a file outside it, the runnable examples in README.md and docs/
// do what they say, and the reference pages agree with the code.
package docs_test

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the module root, one level above this package.
const repoRoot = ".."

// specName matches a path ending in the name of one of the design briefs the
// project started from; only the files under docs/ that replaced them may be
// cited (the pattern is built so that this file does not match itself).
var specName = regexp.MustCompile(`[\w./-]*\b(?:dual|lm|jsonrpc|sandbox|style)\.md`)

var allowedSpecPaths = map[string]bool{"docs/protocol/lm.md": true, "docs/sandbox.md": true}

// outside matches pointers to the folder the briefs lived in.
var outside = regexp.MustCompile(`\.\./shared|shared/spe[c]`)

// repoFiles walks the repository's text files, skipping version control,
// build output and the virtualenvs the interop tests make.
func repoFiles(t *testing.T, visit func(rel string, data []byte)) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != repoRoot && (name == ".git" || name == "bin" || name == "__pycache__" ||
				name == "node_modules" || strings.HasPrefix(name, ".venv") || name == ".pytest_cache") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 4<<20 {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil // binary
		}
		rel, _ := filepath.Rel(repoRoot, path)
		visit(filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoReferenceOutsideTheRepository: comments, docstrings and docs cite
// the project's own docs/ files, never the briefs it was designed from.
func TestNoReferenceOutsideTheRepository(t *testing.T) {
	repoFiles(t, func(rel string, data []byte) {
		for i, line := range strings.Split(string(data), "\n") {
			if m := outside.FindString(line); m != "" {
				t.Errorf("%s:%d: %q points outside the repository; cite a file under docs/ instead", rel, i+1, m)
			}
			for _, m := range specName.FindAllString(line, -1) {
				if !allowedSpecPaths[resolve(rel, m)] {
					t.Errorf("%s:%d: %q is not a file of this repository; cite docs/protocol/judge.md, docs/protocol/lm.md, docs/serve.md or docs/sandbox.md", rel, i+1, m)
				}
			}
		}
	})
}

// resolve turns a cited path into one from the repository root: paths that
// start with docs/ already are; others (relative links between the pages
// of docs/) are taken from the citing file's folder.
func resolve(file, cited string) string {
	if strings.HasPrefix(cited, "docs/") {
		return cited
	}
	return path.Join(path.Dir(file), cited)
}

// docPath matches a cited page of docs/; mdLink a Markdown link to a page.
var (
	docPath = regexp.MustCompile(`\bdocs/[\w./-]+\.md\b`)
	mdLink  = regexp.MustCompile(`\]\(([\w./-]+\.md)(?:#[\w-]*)?\)`)
)

// TestCitedDocsExist: every docs/ page that code, docs or scripts cite,
// and every page a Markdown link points to, is in the repository.
func TestCitedDocsExist(t *testing.T) {
	repoFiles(t, func(rel string, data []byte) {
		for i, line := range strings.Split(string(data), "\n") {
			cited := docPath.FindAllString(line, -1)
			if strings.HasSuffix(rel, ".md") {
				for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
					if !strings.Contains(m[1], "://") {
						cited = append(cited, path.Join(path.Dir(rel), m[1]))
					}
				}
			}
			for _, c := range cited {
				if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(c))); err != nil {
					t.Errorf("%s:%d: cites %s, which is not in the repository", rel, i+1, c)
				}
			}
		}
	})
}
