package sig

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// Glue is what the judge adds to a solution of declared functions so that
// its language's host serves them: the source to build in the
// submission's place, or, for a language without a compile step, a check
// run in the compile sandbox. A wrong or missing function fails the build
// (CompileError) with the expected signatures named.
type Glue struct {
	// Source is compiled in place of the submission (it holds the
	// submission, unchanged, with #line marks where the language has them).
	Source []byte
	// Check, when not nil, is the argv of a compile step for a language
	// that has none ({source} is the source file); it exits non-zero with
	// its reasons on stdout when a declared function is missing or takes
	// other parameters. Support holds the files it needs.
	Check          []string
	Support        fs.FS
	SupportVersion string
	// Expected are the declared functions as the language writes them.
	Expected []string
}

// GlueFor is the glue of a submission in the language langID (an id of
// package lang's built-in table) that sourceName is saved as; nil when
// the language gets none (no declaration, a language without generated
// glue yet, or a source that exports its functions itself).
func GlueFor(langID string, d *Declaration, sourceName string, source []byte) *Glue {
	if d == nil || len(d.Functions) == 0 {
		return nil
	}
	switch langID {
	case "cpp":
		return cppGlue(d, sourceName, source)
	case "python":
		return pythonGlue(d, source)
	}
	return nil
}

// cppGlue includes tether.hpp before the submission and, after it, checks
// each function's type (parameters and result compared after decay, so
// `const std::string&` is a std::string) and exports it. A source that
// uses TETHER_EXPORT itself is left as it is.
func cppGlue(d *Declaration, sourceName string, source []byte) *Glue {
	if bytes.Contains(source, []byte("TETHER_EXPORT")) {
		return nil
	}
	var b bytes.Buffer
	b.WriteString("#include \"tether.hpp\"\n#include <type_traits>\n")
	fmt.Fprintf(&b, "#line 1 %q\n", sourceName)
	b.Write(source)
	if len(source) > 0 && source[len(source)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(`#line 1 "tether_glue.cpp"
namespace tether_glue {
template <class F> struct decayed;
template <class R, class... A> struct decayed<R (*)(A...)> { using type = std::decay_t<R> (*)(std::decay_t<A>...); };
template <class R, class... A> struct decayed<R (*)(A...) noexcept> { using type = std::decay_t<R> (*)(std::decay_t<A>...); };
}  // namespace tether_glue
`)
	g := &Glue{}
	for _, f := range d.Functions {
		want := CppSignature(f)
		g.Expected = append(g.Expected, want)
		var ps []string
		for _, p := range f.Params {
			ps = append(ps, CppType(p.Type))
		}
		result := "void"
		if f.Result != nil {
			result = CppType(f.Result)
		}
		fmt.Fprintf(&b, "static_assert(std::is_same_v<::tether_glue::decayed<decltype(&%s)>::type, %s (*)(%s)>,\n"+
			"              \"%s does not have the declared signature: %s\");\nTETHER_EXPORT(%s);\n",
			f.Name, result, strings.Join(ps, ", "), f.Name, want, f.Name)
	}
	g.Source = b.Bytes()
	return g
}

//go:embed glue/tether_sigcheck.py
var glueFiles embed.FS

var pythonSupport, _ = fs.Sub(glueFiles, "glue")

var pythonSupportVersion = func() string {
	data, err := fs.ReadFile(pythonSupport, "tether_sigcheck.py")
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}()

// pythonGlue leaves the source alone and checks, without running it, that
// each declared function is a top-level def that takes its parameters.
func pythonGlue(d *Declaration, source []byte) *Glue {
	type want struct {
		Name   string   `json:"name"`
		Params []string `json:"params"`
		Def    string   `json:"def"`
	}
	var spec []want
	g := &Glue{Source: source, Support: pythonSupport, SupportVersion: pythonSupportVersion}
	for _, f := range d.Functions {
		w := want{Name: f.Name, Params: []string{}, Def: PythonSignature(f)}
		for _, p := range f.Params {
			w.Params = append(w.Params, p.Name)
		}
		spec = append(spec, w)
		g.Expected = append(g.Expected, w.Def)
	}
	js, err := json.Marshal(spec)
	if err != nil {
		panic(err) // strings only
	}
	g.Check = []string{"python3", "-I", "-B", "tether_sigcheck.py", "{source}", string(js)}
	return g
}
