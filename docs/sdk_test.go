package docs_test

import (
	"encoding/json"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// sdkName is one public name of an SDK and the text that shows docs/sdk.md
// documents it: a pattern matched against the page's code spans.
type sdkName struct {
	name    string // for messages: tether_sdk.evaluator.SolutionRunner.call, evaluator.Runner.Call
	pattern *regexp.Regexp
}

// codeSpans are the page's inline code spans and code blocks' lines.
func codeSpans(page string) []string {
	var spans []string
	inBlock := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			spans = append(spans, line)
			continue
		}
		parts := strings.Split(line, "`")
		for i := 1; i < len(parts); i += 2 {
			spans = append(spans, parts[i])
		}
	}
	return spans
}

// missingNames lists the names no code span of page matches.
func missingNames(page string, names []sdkName) []string {
	spans := codeSpans(page)
	var missing []string
	for _, n := range names {
		if !slices.ContainsFunc(spans, n.pattern.MatchString) {
			missing = append(missing, n.name)
		}
	}
	return missing
}

func word(name string) *regexp.Regexp {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
}

// pythonNames are the public names of the Python SDK's modules: each
// module's __all__ (or its attributes without a leading underscore), and
// the public methods of the classes tether_sdk defines (Class.method).
func pythonNames(t *testing.T) []sdkName {
	t.Helper()
	const script = `
import importlib, inspect, json, sys
out = []
for mod in sys.argv[1:]:
    m = importlib.import_module(mod)
    names = getattr(m, "__all__", None)
    if names is None:
        names = [n for n in vars(m) if not n.startswith("_") and not inspect.ismodule(getattr(m, n))]
    for n in names:
        out.append([mod, n, ""])
        obj = getattr(m, n)
        if inspect.isclass(obj) and obj.__module__.startswith("tether_sdk"):
            for k, v in vars(obj).items():
                if not k.startswith("_") and inspect.isfunction(v):
                    out.append([mod, obj.__name__, k])
print(json.dumps(out))
`
	modules := []string{"tether_sdk.evaluator", "tether_sdk.evaluator.result", "tether_sdk.errors", "tether_sdk.solution",
		"tether_sdk.codec", "tether_sdk.lm", "noj_evaluator_sdk", "noj_solution_sdk"}
	cmd := exec.Command(testenv.Python3(t), append([]string{"-c", script}, modules...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(repoRoot, "sdk", "python"), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("list the Python SDK's names: %v", err)
	}
	var rows [][3]string
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatal(err)
	}
	var names []sdkName
	for _, r := range rows {
		mod, name, method := r[0], r[1], r[2]
		if method == "" {
			names = append(names, sdkName{mod + "." + name, word(name)})
			continue
		}
		names = append(names, sdkName{mod + "." + name + "." + method, word(name + "." + method)})
	}
	if len(names) < 40 {
		t.Fatalf("only %d Python names: the listing is broken", len(names))
	}
	return names
}

// goNames are the exported identifiers of a Go SDK package (go/doc over
// its non-test files): functions as "func Name(", methods as
// "func (r *Type) Name(", types as "type Name ", variables and constants
// as words.
func goNames(t *testing.T, dir string) []sdkName {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/tether-dev/tether/"+filepath.ToSlash(strings.TrimPrefix(dir, repoRoot+string(filepath.Separator))))
	if err != nil {
		t.Fatal(err)
	}
	var names []sdkName
	qual := pkg.Name + "."
	fn := func(name string) {
		names = append(names, sdkName{qual + name, regexp.MustCompile(`func ` + regexp.QuoteMeta(name) + `\(`)})
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				if ast.IsExported(n) {
					names = append(names, sdkName{qual + n, word(n)})
				}
			}
		}
	}
	for _, f := range pkg.Funcs {
		fn(f.Name)
	}
	values(pkg.Vars)
	values(pkg.Consts)
	for _, ty := range pkg.Types {
		names = append(names, sdkName{qual + ty.Name, regexp.MustCompile(`type ` + regexp.QuoteMeta(ty.Name) + `\b`)})
		for _, f := range ty.Funcs { // constructors
			fn(f.Name)
		}
		for _, m := range ty.Methods {
			names = append(names, sdkName{qual + ty.Name + "." + m.Name,
				regexp.MustCompile(`func \(\w+ \*?` + regexp.QuoteMeta(ty.Name) + `\) ` + regexp.QuoteMeta(m.Name) + `\(`)})
		}
		values(ty.Vars)
		values(ty.Consts)
	}
	return names
}

// section is the part of page under the "## " heading that contains
// title, up to the next such heading: a Go package's names are looked for
// in its own section (both packages have an Options type).
func section(t *testing.T, page, title string) string {
	t.Helper()
	start := -1
	lines := strings.Split(page, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "## ") {
			continue
		}
		if start >= 0 {
			return strings.Join(lines[start:i], "\n")
		}
		if strings.Contains(line, title) {
			start = i
		}
	}
	if start < 0 {
		t.Fatalf("docs/sdk.md has no section titled with %s", title)
	}
	return strings.Join(lines[start:], "\n")
}

// Every public name of the Python and Go SDKs is in docs/sdk.md.
func TestSDKReferenceNamesEveryPublicName(t *testing.T) {
	raw, err := os.ReadFile("sdk.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	missing := missingNames(page, pythonNames(t))
	for _, dir := range []string{"evaluator", "solution"} {
		pkg := "sdk/go/" + dir
		missing = append(missing, missingNames(section(t, page, "`"+pkg+"`"), goNames(t, filepath.Join(repoRoot, "sdk", "go", dir)))...)
	}
	if len(missing) > 0 {
		t.Errorf("docs/sdk.md does not document %d public name(s) of the SDKs (add each with its signature):\n  %s",
			len(missing), strings.Join(missing, "\n  "))
	}
}

// The check finds a name that is missing: a page without one of the Go
// SDK's methods, a Python function or a Python method is refused for it.
func TestSDKReferenceCheckFindsAMissingName(t *testing.T) {
	page, err := os.ReadFile("sdk.md")
	if err != nil {
		t.Fatal(err)
	}
	names := append(pythonNames(t), goNames(t, filepath.Join(repoRoot, "sdk", "go", "evaluator"))...)
	names = append(names, goNames(t, filepath.Join(repoRoot, "sdk", "go", "solution"))...)
	for _, c := range []struct{ cut, want string }{
		{"func (r *Runner) TimeLimitExceeded(", "evaluator.Runner.TimeLimitExceeded"},
		{"result.time_limit_exceeded(", "tether_sdk.evaluator.result.time_limit_exceeded"},
		{"SolutionRunner.close(", "tether_sdk.evaluator.SolutionRunner.close"},
		{"type Options struct { Sequential", "solution.Options"},
	} {
		cut := strings.ReplaceAll(string(page), c.cut, "(removed)(")
		cut = strings.ReplaceAll(cut, strings.TrimSuffix(strings.TrimPrefix(c.cut, "result."), "("), "removed")
		missing := missingNames(cut, names)
		if strings.HasPrefix(c.want, "solution.") { // a Go package's names count in its section only
			missing = missingNames(section(t, cut, "`sdk/go/solution`"), names)
		}
		if !slices.Contains(missing, c.want) {
			t.Errorf("without %q the check missed %s (it found %v)", c.cut, c.want, missing)
		}
	}
}
