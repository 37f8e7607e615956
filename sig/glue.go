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
	// Files are compiled beside the source (Go: the glue's own file).
	Files []GlueFile
	// Explain, when not nil, rewrites the compiler's messages about the
	// generated code into what the submission must change.
	Explain func(messages string) string
	// Expected are the declared functions as the language writes them.
	Expected []string
}

// GlueFile is a generated file of the build.
type GlueFile struct {
	Name string
	Data []byte
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
	case "javascript":
		return javascriptGlue(d, source)
	case "java":
		return javaGlue(d, source)
	case "rust":
		return rustGlue(d, source)
	case "c":
		return cGlue(d, sourceName, source)
	case "go":
		return goGlue(d, sourceName, source)
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
	withLineMarks(&b, "#include \"tether.hpp\"\n#include <type_traits>\n", sourceName, source, "tether_glue.cpp")
	b.WriteString(`namespace tether_glue {
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

// JavaScriptDeclared is the global symbol's key under which the glue
// appended to a JavaScript solution leaves a function returning its
// top-level bindings of the declared names (host.js reads it).
const JavaScriptDeclared = "tether.declared"

// javascriptGlue appends to the source (after its last line, so line
// numbers stay) a statement that hands the host the top-level bindings of
// the declared names: a function declared in a CommonJS or ES module is
// not visible outside it otherwise. Exported functions still come first.
// The check loads the source in the compile sandbox (its top-level code
// runs there too) and refuses a declared function that is missing or whose
// length is not its number of parameters.
func javascriptGlue(d *Declaration, source []byte) *Glue {
	type want struct {
		Name   string `json:"name"`
		Params int    `json:"params"`
		Def    string `json:"def"`
	}
	var spec []want
	var b bytes.Buffer
	b.Write(source)
	fmt.Fprintf(&b, "\n;globalThis[Symbol.for(%q)] = () => ({", JavaScriptDeclared)
	g := &Glue{}
	for i, f := range d.Functions {
		w := want{Name: f.Name, Params: len(f.Params), Def: JavaScriptSignature(f)}
		spec = append(spec, w)
		g.Expected = append(g.Expected, w.Def)
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: typeof %s === 'undefined' ? undefined : %s", f.Name, f.Name, f.Name)
	}
	b.WriteString("});\n")
	js, err := json.Marshal(spec)
	if err != nil {
		panic(err) // strings and numbers only
	}
	g.Source = b.Bytes()
	g.Check = []string{"node", "host.js", "--check", string(js), "{source}"}
	return g
}

// javaGlue appends to Solution.java (after its last line, so line numbers
// stay) the class TetherDeclared: NAMES lists the declared functions (the
// host serves them whatever their access), and for each a method of the
// declared types that calls Solution's and returns its result, so javac
// refuses a method that is missing or that the declared arguments or
// result do not fit (its message shows the line, which names the
// expected signature).
func javaGlue(d *Declaration, source []byte) *Glue {
	var b bytes.Buffer
	b.Write(source)
	b.WriteString("\nfinal class TetherDeclared { // generated by the judge from problem.json functions\n  static final String[] NAMES = {")
	g := &Glue{}
	for i, f := range d.Functions {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", f.Name)
	}
	b.WriteString("};\n")
	for _, f := range d.Functions {
		want := JavaSignature(f)
		g.Expected = append(g.Expected, want)
		var args []string
		for _, p := range f.Params {
			args = append(args, p.Name)
		}
		ret := "return "
		if f.Result == nil {
			ret = ""
		}
		fmt.Fprintf(&b, "  %s { %sSolution.%s(%s); } // the problem declares: %s\n",
			javaSignature(f, true), ret, f.Name, strings.Join(args, ", "), want)
	}
	b.WriteString("}\n")
	g.Source = b.Bytes()
	return g
}

// rustGlue appends to main.rs (after its last line, so line numbers stay)
// a glob import of the host's prelude (Value, Bytes, BTreeMap), for each
// function a constant of its declared fn-pointer type (rustc refuses a
// function that is missing or has other parameter or result types: the
// types must be exactly the declared ones) and the tether_export! of them
// all. A source that invokes tether_export! itself is left as it is.
func rustGlue(d *Declaration, source []byte) *Glue {
	if bytes.Contains(source, []byte("tether_export!")) {
		return nil
	}
	var b bytes.Buffer
	b.Write(source)
	b.WriteString("\n#[allow(unused_imports)]\nuse crate::tether::prelude::*; // generated by the judge from problem.json functions\n")
	g := &Glue{}
	var names []string
	for _, f := range d.Functions {
		want := RustSignature(f)
		g.Expected = append(g.Expected, want)
		names = append(names, f.Name)
		// The alias keeps the checked line short: rustc cuts long lines
		// in its messages, and this one names the expected signature.
		fmt.Fprintf(&b, "#[allow(non_camel_case_types, dead_code)]\ntype tether_%s = %s;\nconst _: tether_%s = %s; // the problem declares: %s\n",
			f.Name, rustFnPointer(f), f.Name, f.Name, want)
	}
	fmt.Fprintf(&b, "tether_export!(%s);\n", strings.Join(names, ", "))
	g.Source = b.Bytes()
	return g
}

// cGlue includes tether.h (and stdbool.h) before the submission and, after
// it, checks each function's type with a _Static_assert (GCC's and
// Clang's __builtin_types_compatible_p: the types must be the declared
// ones, CSignature) and exports a wrapper that converts the arguments and
// the result. A source that uses TETHER_EXPORT itself is left as it is.
func cGlue(d *Declaration, sourceName string, source []byte) *Glue {
	if bytes.Contains(source, []byte("TETHER_EXPORT")) {
		return nil
	}
	var b bytes.Buffer
	withLineMarks(&b, "#include \"tether.h\"\n#include <stdbool.h>\n", sourceName, source, "tether_glue.c")
	g := &Glue{}
	for _, f := range d.Functions {
		want := CSignature(f)
		g.Expected = append(g.Expected, want)
		var ps, args []string
		for i, p := range f.Params {
			ps = append(ps, CType(p.Type, false))
			arg := fmt.Sprintf("tether_at(args, %d)", i)
			switch p.Type.Kind {
			case Int:
				arg = "tether_as_int(" + arg + ")"
			case Float:
				arg = "tether_as_float(" + arg + ")"
			case Bool:
				arg = "tether_as_bool(" + arg + ")"
			case String:
				// refuses a NUL inside, which a const char * would cut off
				arg = "tether_as_c_string(" + arg + ")"
			}
			args = append(args, arg)
		}
		if len(ps) == 0 {
			ps = []string{"void"}
		}
		result := "void"
		if f.Result != nil {
			result = CType(f.Result, true)
		}
		fmt.Fprintf(&b, "_Static_assert(__builtin_types_compatible_p(__typeof__(&%s), %s (*)(%s)),\n"+
			"               \"%s does not have the declared signature: %s\");\n", f.Name, result, strings.Join(ps, ", "), f.Name, want)
		fmt.Fprintf(&b, "static tether_value *tether_glue_%s(const tether_value *args) {\n  (void)args;\n", f.Name)
		call := f.Name + "(" + strings.Join(args, ", ") + ")"
		switch {
		case f.Result == nil:
			fmt.Fprintf(&b, "  %s;\n  return NULL;\n", call)
		case f.Result.Kind == Int:
			fmt.Fprintf(&b, "  return tether_int(%s);\n", call)
		case f.Result.Kind == Float:
			fmt.Fprintf(&b, "  return tether_float(%s);\n", call)
		case f.Result.Kind == Bool:
			fmt.Fprintf(&b, "  return tether_bool(%s);\n", call)
		case f.Result.Kind == String:
			fmt.Fprintf(&b, "  const char *r = %s;\n  return r ? tether_string(r) : NULL;\n", call)
		default:
			fmt.Fprintf(&b, "  return %s;\n", call)
		}
		fmt.Fprintf(&b, "}\n__attribute__((constructor)) static void tether_export_%s(void) { tether_register(%q, tether_glue_%s); }\n",
			f.Name, f.Name, f.Name)
	}
	g.Source = b.Bytes()
	return g
}

// withLineMarks writes header, then the source under #line marks that keep
// its own file name and line numbers in the compiler's messages, then a
// #line mark that names what follows glueName.
func withLineMarks(b *bytes.Buffer, header, sourceName string, source []byte, glueName string) {
	b.WriteString(header)
	fmt.Fprintf(b, "#line 1 %q\n", sourceName)
	b.Write(source)
	if len(source) > 0 && source[len(source)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "#line 1 %q\n", glueName)
}
