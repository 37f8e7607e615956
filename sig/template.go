package sig

import (
	"fmt"
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
var TemplateLanguages = []string{"cpp", "python"}

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
	for _, r := range d.Records {
		fmt.Fprintf(&b, "\n// %s is a tether::json object with the fields:", r.Name)
		if r.Description != "" {
			fmt.Fprintf(&b, " (%s)", r.Description)
		}
		b.WriteString("\n")
		for _, f := range r.Fields {
			fmt.Fprintf(&b, "//   %s: %s\n", f.Name, CppType(f.Type))
		}
	}
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
	var note func(t *Type)
	note = func(t *Type) {
		switch t.Kind {
		case List:
			typing["List"] = true
		case Map:
			typing["Dict"] = true
		case Optional:
			typing["Optional"] = true
		case Any:
			typing["Any"] = true
		}
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
	b.WriteString("# Write only the functions (docs/languages.md, \"Declared functions\").\n")
	if len(typing) > 0 {
		var names []string
		for n := range typing {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "from typing import %s\n", strings.Join(names, ", "))
	}
	for _, r := range d.Records {
		fmt.Fprintf(&b, "\n# %s is a dict with the keys:", r.Name)
		if r.Description != "" {
			fmt.Fprintf(&b, " (%s)", r.Description)
		}
		b.WriteString("\n")
		for _, f := range r.Fields {
			fmt.Fprintf(&b, "#   %s: %s\n", f.Name, PythonType(f.Type))
		}
	}
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
	switch t.Kind {
	case Int, BigInt:
		return "0"
	case Float:
		return "0.0"
	case Bool:
		return "False"
	case String:
		return `""`
	case Bytes:
		return `b""`
	case List:
		return "[]"
	case Map, Record:
		return "{}"
	}
	return "None"
}
