// Package sig owns the declared functions of a problem (problem.json
// "functions" and "types", docs/problem.md): the type language, its
// parsing and validation with errors that name the field, the check of a
// transferable value against a type (the evaluator SDKs check arguments
// and results with it), how each solution language spells a type, and the
// host glue generated for a solution that holds nothing but its functions.
// It sits below package lang and the judge and imports only codec.
package sig

import (
	"fmt"
	"sort"
	"strings"
)

// Kind is the kind of a type of the type language.
type Kind int

// The kinds of the type language.
const (
	Int      Kind = iota + 1 // 64-bit signed integer
	BigInt                   // integer of any size
	Float                    // IEEE double
	Bool                     //
	String                   // UTF-8 text
	Bytes                    // any bytes
	List                     // list<T>
	Map                      // map<string,T>
	Optional                 // optional<T>: T or null
	Record                   // a named record of types
	Any                      // any transferable value
)

var scalarNames = map[string]Kind{
	"int": Int, "bigint": BigInt, "float": Float, "bool": Bool,
	"string": String, "bytes": Bytes, "any": Any,
}

// knownTypes lists the type language for error messages.
const knownTypes = "int, bigint, float, bool, string, bytes, list<T>, map<string,T>, optional<T>, any"

// Type is a parsed type. Elem is the element of a list, map or optional;
// Name the record's name.
type Type struct {
	Kind Kind
	Elem *Type
	Name string
}

// String is the type as problem.json writes it, canonical: "list<int>",
// "map<string,optional<Point>>".
func (t *Type) String() string {
	switch t.Kind {
	case List:
		return "list<" + t.Elem.String() + ">"
	case Map:
		return "map<string," + t.Elem.String() + ">"
	case Optional:
		return "optional<" + t.Elem.String() + ">"
	case Record:
		return t.Name
	}
	for name, k := range scalarNames {
		if k == t.Kind {
			return name
		}
	}
	return "?"
}

// Tree is the type as the judge hands it to the evaluator SDKs (the
// TETHER_FUNCTIONS variable, docs/protocol/judge.md): a scalar's name, or
// {"list": T}, {"map": T}, {"optional": T}, {"record": "Name"}.
func (t *Type) Tree() any {
	switch t.Kind {
	case List:
		return map[string]any{"list": t.Elem.Tree()}
	case Map:
		return map[string]any{"map": t.Elem.Tree()}
	case Optional:
		return map[string]any{"optional": t.Elem.Tree()}
	case Record:
		return map[string]any{"record": t.Name}
	}
	return t.String()
}

// ParseType reads a type written in the type language; records names the
// declared records (a name not among them is an unknown type).
func ParseType(text string, records map[string]bool) (*Type, error) {
	p := &typeParser{s: text, records: records}
	t, err := p.parse(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("%q: unexpected %q after the type", text, p.s[p.i:])
	}
	return t, nil
}

// maxTypeDepth bounds the nesting of a written type.
const maxTypeDepth = 32

type typeParser struct {
	s       string
	i       int
	records map[string]bool
}

func (p *typeParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *typeParser) word() string {
	p.space()
	start := p.i
	for p.i < len(p.s) && isIdentByte(p.s[p.i], p.i > start) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *typeParser) expect(c byte) error {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != c {
		got := "the end"
		if p.i < len(p.s) {
			got = fmt.Sprintf("%q", p.s[p.i:p.i+1])
		}
		return fmt.Errorf("%q: want %q at byte %d, got %s", p.s, string(c), p.i, got)
	}
	p.i++
	return nil
}

func (p *typeParser) parse(depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("%q: nested deeper than %d", p.s, maxTypeDepth)
	}
	name := p.word()
	if name == "" {
		return nil, fmt.Errorf("%q: want a type at byte %d (known: %s)", p.s, p.i, knownTypes)
	}
	if k, ok := scalarNames[name]; ok {
		return &Type{Kind: k}, nil
	}
	var kind Kind
	switch name {
	case "list":
		kind = List
	case "map":
		kind = Map
	case "optional":
		kind = Optional
	default:
		if p.records[name] {
			return &Type{Kind: Record, Name: name}, nil
		}
		return nil, fmt.Errorf("unknown type %q (known: %s%s)", name, knownTypes, recordList(p.records))
	}
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	if kind == Map {
		if key := p.word(); key != "string" {
			return nil, fmt.Errorf("%q: a map's keys are strings: write map<string,T>", p.s)
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
	}
	elem, err := p.parse(depth + 1)
	if err != nil {
		return nil, err
	}
	if err := p.expect('>'); err != nil {
		return nil, err
	}
	if kind == Optional && elem.Kind == Optional {
		return nil, fmt.Errorf("%q: optional<optional<T>> cannot be told from optional<T>", p.s)
	}
	return &Type{Kind: kind, Elem: elem}, nil
}

func recordList(records map[string]bool) string {
	if len(records) == 0 {
		return ""
	}
	names := make([]string, 0, len(records))
	for n := range records {
		names = append(names, n)
	}
	sort.Strings(names)
	return ", or a declared type: " + strings.Join(names, ", ")
}

func isIdentByte(c byte, notFirst bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || notFirst && c >= '0' && c <= '9'
}
