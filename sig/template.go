package sig

import (
	"fmt"
	"go/format"
	"sort"
	"strings"
)

// Template is a contestant's starting file in a language: each declared
// function with its description and a body that compiles and returns a
// default value.
type Template struct {
	Language string // the language's id in package lang's table
	File     string // "template.cpp"
	Text     []byte
}

// TemplateLanguages are the languages Templates writes, in order.
var TemplateLanguages = []string{"cpp", "c", "python", "javascript", "java", "rust", "go"}

// Templates are the starting files of d for languages (ids; empty: all
// of TemplateLanguages). An id without a template is an error naming the
// ones there are.
func Templates(d *Declaration, languages []string) ([]Template, error) {
	if d == nil {
		return nil, fmt.Errorf("the problem declares no functions (problem.json \"functions\"); templates are made from them")
	}
	if len(languages) == 0 {
		languages = TemplateLanguages
	}
	var out []Template
	for _, id := range languages {
		switch id {
		case "cpp":
			out = append(out, Template{Language: id, File: "template.cpp", Text: cppTemplate(d)})
		case "python":
			out = append(out, Template{Language: id, File: "template.py", Text: pythonTemplate(d)})
		case "javascript":
			out = append(out, Template{Language: id, File: "template.js", Text: javascriptTemplate(d)})
		case "java":
			out = append(out, Template{Language: id, File: "template.java", Text: javaTemplate(d)})
		case "rust":
			out = append(out, Template{Language: id, File: "template.rs", Text: rustTemplate(d)})
		case "c":
			out = append(out, Template{Language: id, File: "template.c", Text: cTemplate(d)})
		case "go":
			out = append(out, Template{Language: id, File: "template.go", Text: goTemplate(d)})
		default:
			return nil, fmt.Errorf("no template for the language %q yet (there are: %s)", id, strings.Join(TemplateLanguages, ", "))
		}
	}
	return out, nil
}

func cppTemplate(d *Declaration) []byte {
	var b strings.Builder
	b.WriteString("// Write only the functions: the judge adds the rest (docs/languages.md, \"Declared functions\").\n")
	b.WriteString("// Containers and tether::json come with it; include any other header you use.\n")
	recordComments(&b, d, "\n//", "//  ", "", "a tether::json object", CppType)
	for _, f := range d.Functions {
		b.WriteString("\n")
		if f.Description != "" {
			fmt.Fprintf(&b, "// %s\n", f.Description)
		}
		fmt.Fprintf(&b, "%s {\n", CppSignature(f))
		if f.Result != nil {
			b.WriteString("  return {};\n")
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

func pythonTemplate(d *Declaration) []byte {
	var b strings.Builder
	typing := map[string]bool{}
	kinds := d.kinds(false)
	for k, name := range map[Kind]string{List: "List", Map: "Dict", Optional: "Optional", Any: "Any"} {
		if kinds[k] {
			typing[name] = true
		}
	}
	b.WriteString("# Write only the functions (docs/languages.md, \"Declared functions\").\n")
	if len(typing) > 0 {
		var names []string
		for n := range typing {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "from typing import %s\n", strings.Join(names, ", "))
	}
	recordComments(&b, d, "\n#", "#  ", "", "a dict", PythonType)
	for _, f := range d.Functions {
		fmt.Fprintf(&b, "\n\n%s:\n", PythonSignature(f))
		if f.Description != "" {
			fmt.Fprintf(&b, "    %s\n", pythonDocstring(f.Description))
		}
		fmt.Fprintf(&b, "    return %s\n", pythonDefault(f.Result))
	}
	return []byte(b.String())
}

// pythonDocstring quotes a one-line description as a docstring.
func pythonDocstring(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"""`, `\"\"\"`)
	if strings.HasSuffix(s, `"`) {
		s += " "
	}
	return `"""` + s + `"""`
}

func pythonDefault(t *Type) string {
	if t == nil {
		return "None"
	}
	return pythonDefaults.of(t)
}

var pythonDefaults = perKind{
	Int: "0", BigInt: "0", Float: "0.0", Bool: "False", String: `""`, Bytes: `b""`,
	List: "[]", Map: "{}", Record: "{}", Any: "None",
}

func javascriptTemplate(d *Declaration) []byte {
	var b strings.Builder
	b.WriteString("// Write only the functions, at top level (docs/languages.md, \"Declared functions\").\n")
	b.WriteString("// Integers beyond 2^53 arrive as BigInt; return a BigInt for a result that may be one.\n")
	for _, r := range d.Records {
		fmt.Fprintf(&b, "\n/**\n * @typedef {Object} %s", r.Name)
		if r.Description != "" {
			fmt.Fprintf(&b, " %s", r.Description)
		}
		b.WriteString("\n")
		for _, f := range r.Fields {
			fmt.Fprintf(&b, " * @property {%s} %s\n", JavaScriptType(f.Type), f.Name)
		}
		b.WriteString(" */\n")
	}
	for _, f := range d.Functions {
		b.WriteString("\n/**\n")
		if f.Description != "" {
			fmt.Fprintf(&b, " * %s\n", f.Description)
		}
		for _, p := range f.Params {
			fmt.Fprintf(&b, " * @param {%s} %s\n", JavaScriptType(p.Type), p.Name)
		}
		if f.Result != nil {
			fmt.Fprintf(&b, " * @returns {%s}\n", JavaScriptType(f.Result))
		}
		fmt.Fprintf(&b, " */\n%s {\n", JavaScriptSignature(f))
		if f.Result != nil {
			fmt.Fprintf(&b, "  return %s;\n", javascriptDefaults.of(f.Result))
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

var javascriptDefaults = perKind{
	Int: "0", BigInt: "0", Float: "0", Bool: "false", String: `""`, Bytes: "new Uint8Array(0)",
	List: "[]", Map: "{}", Record: "{}", Any: "null",
}

func javaTemplate(d *Declaration) []byte {
	var b strings.Builder
	b.WriteString("// Write only the functions, as static methods of Solution (docs/languages.md, \"Declared functions\").\n")
	b.WriteString("import java.math.BigInteger;\nimport java.util.*;\n\nclass Solution {\n")
	recordComments(&b, d, "    //", "    //  ", "\n", "an Object (a Map<String, Object>)", JavaType)
	for i, f := range d.Functions {
		if i > 0 {
			b.WriteString("\n")
		}
		if f.Description != "" {
			fmt.Fprintf(&b, "    /** %s */\n", f.Description)
		}
		fmt.Fprintf(&b, "    %s {\n", JavaSignature(f))
		if f.Result != nil {
			fmt.Fprintf(&b, "        return %s;\n", javaDefaults.of(f.Result))
		}
		b.WriteString("    }\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

var javaDefaults = perKind{
	Int: "0", Float: "0", BigInt: "BigInteger.ZERO", Bool: "false", String: `""`, Bytes: "new byte[0]",
	List: "new ArrayList<>()", Map: "new HashMap<>()", Any: "null",
}

func rustTemplate(d *Declaration) []byte {
	var b strings.Builder
	b.WriteString("// Write only the functions, with exactly these types (docs/languages.md, \"Declared functions\").\n")
	b.WriteString("// Value, Bytes and BTreeMap come with the judge's glue; Value::Int or Value::BigInt (digits) is an integer.\n")
	recordComments(&b, d, "\n//", "//  ", "", "a Value::Map", RustType)
	for _, f := range d.Functions {
		b.WriteString("\n")
		if f.Description != "" {
			fmt.Fprintf(&b, "/// %s\n", f.Description)
		}
		b.WriteString("#[allow(unused_variables)]\n")
		fmt.Fprintf(&b, "%s {\n", RustSignature(f))
		if f.Result != nil {
			fmt.Fprintf(&b, "    %s\n", rustDefaults.of(f.Result))
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

var rustDefaults = perKind{
	Int: "0", Float: "0.0", Bool: "false", String: "String::new()", Bytes: "Bytes::default()",
	List: "Vec::new()", Map: "BTreeMap::new()", Optional: "None", Any: "Value::Null",
}

func cTemplate(d *Declaration) []byte {
	var b strings.Builder
	b.WriteString("/* Write only the functions, with exactly these types (docs/languages.md, \"Declared functions\").\n")
	b.WriteString(" * tether.h and stdbool.h come with it: a tether_value is read with tether_kind_of,\n")
	b.WriteString(" * tether_as_int, tether_at, tether_get, ... and made with tether_int, tether_list, ...\n")
	b.WriteString(" * (the host frees a returned value; NULL is null). Include any other header you use. */\n")
	recordComments(&b, d, "\n/*", " *  ", " */\n", "a tether_value map", (*Type).String)
	for _, f := range d.Functions {
		b.WriteString("\n")
		if f.Description != "" {
			fmt.Fprintf(&b, "/* %s */\n", f.Description)
		}
		fmt.Fprintf(&b, "%s {\n", CSignature(f))
		for _, p := range f.Params {
			fmt.Fprintf(&b, "  (void)%s;\n", p.Name)
		}
		if f.Result != nil {
			fmt.Fprintf(&b, "  return %s;\n", cDefaults.of(f.Result))
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

var cDefaults = perKind{Int: "0", Float: "0", Bool: "false", String: `""`, Any: "NULL"}

func goTemplate(d *Declaration) []byte {
	var b strings.Builder
	b.WriteString("// Write only the functions, in package main, with exactly these types (docs/languages.md,\n")
	b.WriteString("// \"Declared functions\"): the judge adds main and the host. Declare a record yourself, as\n")
	b.WriteString("// here, or leave it to the judge.\npackage main\n")
	if d.kinds(true)[BigInt] {
		b.WriteString("\nimport \"math/big\"\n")
	}
	for _, r := range d.Records {
		b.WriteString("\n")
		if r.Description != "" {
			fmt.Fprintf(&b, "// %s\n", r.Description)
		}
		fmt.Fprintf(&b, "%s\n", goStruct(r, false, "big"))
	}
	for _, f := range d.Functions {
		b.WriteString("\n")
		if f.Description != "" {
			fmt.Fprintf(&b, "// %s\n", f.Description)
		}
		fmt.Fprintf(&b, "%s {\n", GoSignature(f))
		if f.Result != nil {
			fmt.Fprintf(&b, "\treturn %s\n", goZero(f.Result, false))
		}
		b.WriteString("}\n")
	}
	return gofmt(b.String())
}

// gofmt is generated Go source formatted as gofmt would (as it is, should
// it not parse: the compiler will say why).
func gofmt(src string) []byte {
	out, err := format.Source([]byte(src))
	if err != nil {
		return []byte(src)
	}
	return out
}

// goZero is the zero value of t in Go (exported: as goType spells it).
func goZero(t *Type, exported bool) string {
	switch t.Kind {
	case Int, Float:
		return "0"
	case Bool:
		return "false"
	case String:
		return `""`
	case Record:
		return goType(t, exported, "big") + "{}"
	}
	return "nil"
}

// kinds are the kinds of the types d's functions take and return, inside
// lists, maps and optionals too, and with records those of their fields.
func (d *Declaration) kinds(records bool) map[Kind]bool {
	out := map[Kind]bool{}
	var note func(t *Type)
	note = func(t *Type) {
		out[t.Kind] = true
		if t.Elem != nil {
			note(t.Elem)
		}
	}
	for _, f := range d.Functions {
		for _, p := range f.Params {
			note(p.Type)
		}
		if f.Result != nil {
			note(f.Result)
		}
	}
	if records {
		for _, r := range d.Records {
			for _, f := range r.Fields {
				note(f.Type)
			}
		}
	}
	return out
}

// recordComments writes each record of d as a comment: open, "Point is
// what with the fields (description):", a line per field (prefix, its
// name and type as spell writes it), then end.
func recordComments(b *strings.Builder, d *Declaration, open, prefix, end, what string, spell func(*Type) string) {
	for _, r := range d.Records {
		fmt.Fprintf(b, "%s %s is %s with the fields", open, r.Name, what)
		if r.Description != "" {
			fmt.Fprintf(b, " (%s)", r.Description)
		}
		b.WriteString(":\n")
		for _, f := range r.Fields {
			fmt.Fprintf(b, "%s %s: %s\n", prefix, f.Name, spell(f.Type))
		}
		b.WriteString(end)
	}
}
