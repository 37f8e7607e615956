// Package schemas holds the JSON Schemas (2020-12) of what tether reads and
// writes — problem.json, the result object, a judge-protocol frame — and
// checks documents against them with messages in the user's terms: the
// field's dotted path and what was wanted, and for a misspelt field the
// nearest known name. The schema files in this folder are the reference;
// docs/problem.md, docs/result.md and docs/protocol/judge.md describe them.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/tether-dev/tether/internal/suggest"
)

// The schema files, by name.
const (
	Problem = "problem.schema.json"
	Result  = "result.schema.json"
	Frame   = "frame.schema.json"
	// Languages is an operator's languages file (docs/languages.md).
	Languages = "languages.schema.json"
)

//go:embed problem.schema.json result.schema.json frame.schema.json languages.schema.json
var files embed.FS

// Source returns a schema file's text.
func Source(name string) ([]byte, error) { return files.ReadFile(name) }

// Issue is one thing wrong with a document.
type Issue struct {
	// Path is the member's dotted path (runtime_config.solution.command,
	// logs.kept[0].data); "" for the document as a whole.
	Path    string `json:"field"`
	Message string `json:"message"`
	// Unknown marks a member the schema does not know (often a typo).
	Unknown bool `json:"unknown,omitempty"`
}

func (i Issue) String() string {
	if i.Path == "" {
		return i.Message
	}
	return i.Path + ": " + i.Message
}

type compiled struct {
	schema *jsonschema.Schema
	doc    any // the schema itself, to look up the fields it knows
}

var compileAll = sync.OnceValues(func() (map[string]compiled, error) {
	c := jsonschema.NewCompiler()
	docs := map[string]any{}
	for _, name := range []string{Problem, Result, Frame, Languages} {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", name, err)
		}
		if err := c.AddResource(name, doc); err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", name, err)
		}
		docs[name] = doc
	}
	out := map[string]compiled{}
	for name, doc := range docs {
		s, err := c.Compile(name)
		if err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", name, err)
		}
		out[name] = compiled{schema: s, doc: doc}
	}
	return out, nil
})

// Check validates data, JSON text, against the named schema. It returns
// nil when data is valid; data that is not JSON is one Issue. The error is
// for a name that is not one of the schema files.
func Check(name string, data []byte) ([]Issue, error) {
	all, err := compileAll()
	if err != nil {
		return nil, err
	}
	c, ok := all[name]
	if !ok {
		return nil, fmt.Errorf("schemas: no schema %q", name)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []Issue{{Message: "not valid JSON: " + jsonError(data, err)}}, nil
	}
	err = c.schema.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Message: err.Error()}}, nil
	}
	return issuesOf(c.doc, ve), nil
}

// CheckValue validates v, encoded with encoding/json, against the named
// schema.
func CheckValue(name string, v any) ([]Issue, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Check(name, data)
}

// jsonError says where data stops being JSON, by line and column.
func jsonError(data []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(json.Unmarshal(data, new(any)), &syn) {
		line := 1 + bytes.Count(data[:syn.Offset], []byte("\n"))
		col := int(syn.Offset) - bytes.LastIndexByte(data[:syn.Offset], '\n') - 1
		return fmt.Sprintf("line %d, column %d: %v", line, col, syn)
	}
	return err.Error()
}

// leaf is one failed keyword at one place.
type leaf struct {
	path      []string
	schemaURL string
	kind      jsonschema.ErrorKind
	branch    bool // found under oneOf/anyOf: one of several alternatives
}

func collect(e *jsonschema.ValidationError, branch bool, out []leaf) []leaf {
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		branch = true
	}
	if len(e.Causes) == 0 {
		return append(out, leaf{path: e.InstanceLocation, schemaURL: e.SchemaURL, kind: e.ErrorKind, branch: branch})
	}
	for _, c := range e.Causes {
		out = collect(c, branch, out)
	}
	return out
}

func issuesOf(doc any, ve *jsonschema.ValidationError) []Issue {
	leaves := collect(ve, false, nil)
	// Among the alternatives of a oneOf at one place, a branch that failed
	// only on its type says nothing once another branch got further.
	typeOnly := map[string][]string{} // path -> wanted types of failed branches
	further := map[string]bool{}      // path -> some branch failed on more than its type
	for _, l := range leaves {
		key := strings.Join(l.path, "\x00")
		if t, ok := l.kind.(*kind.Type); ok && l.branch {
			typeOnly[key] = append(typeOnly[key], t.Want...)
		} else if l.branch {
			further[key] = true
		}
	}
	var issues []Issue
	seenType := map[string]bool{}
	for _, l := range leaves {
		key := strings.Join(l.path, "\x00")
		path := dotted(l.path)
		switch k := l.kind.(type) {
		case *kind.Type:
			if l.branch {
				if further[key] || seenType[key] {
					continue
				}
				seenType[key] = true
				issues = append(issues, Issue{Path: path, Message: fmt.Sprintf("want %s, got %s", kinds(typeOnly[key]), k.Got)})
				continue
			}
			issues = append(issues, Issue{Path: path, Message: fmt.Sprintf("want %s, got %s", kinds(k.Want), k.Got)})
		case *kind.AdditionalProperties:
			known := knownFields(doc, l.schemaURL)
			for _, p := range k.Properties {
				issues = append(issues, Issue{Path: dotted(append(slices.Clone(l.path), p)), Message: suggest.UnknownMessage("field", p, known), Unknown: true})
			}
		case *kind.Required:
			for _, m := range k.Missing {
				issues = append(issues, Issue{Path: dotted(append(slices.Clone(l.path), m)), Message: "missing; this field is required"})
			}
		case *kind.Enum:
			want := make([]string, len(k.Want))
			for i, w := range k.Want {
				want[i] = display(w)
			}
			issues = append(issues, Issue{Path: path, Message: fmt.Sprintf("want one of %s, got %s", strings.Join(want, ", "), display(k.Got))})
		case *kind.Const:
			issues = append(issues, Issue{Path: path, Message: fmt.Sprintf("want %s, got %s", display(k.Want), display(k.Got))})
		case *kind.Minimum:
			issues = append(issues, Issue{Path: path, Message: fmt.Sprintf("must be at least %s, got %s", ratString(k.Want), ratString(k.Got))})
		case *kind.Maximum:
			issues = append(issues, Issue{Path: path, Message: fmt.Sprintf("must be at most %s, got %s", ratString(k.Want), ratString(k.Got))})
		case *kind.MinLength, *kind.MinItems:
			issues = append(issues, Issue{Path: path, Message: "must not be empty"})
		default:
			issues = append(issues, Issue{Path: path, Message: l.kind.LocalizedString(printer)})
		}
	}
	return issues
}

// dotted writes an instance location as a.b[0].c.
func dotted(loc []string) string {
	var sb strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil {
			sb.WriteString("[" + tok + "]")
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(tok)
	}
	return sb.String()
}

// kinds names JSON types in words: "a string or an array".
func kinds(types []string) string {
	var words []string
	for i, t := range types {
		if slices.Index(types, t) < i {
			continue // said already
		}
		switch t {
		case "integer", "array", "object":
			words = append(words, "an "+t)
		case "null":
			words = append(words, "null")
		case "boolean":
			words = append(words, "true or false")
		default:
			words = append(words, "a "+t)
		}
	}
	return strings.Join(words, " or ")
}

func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(3)
}
