package sig

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Declaration is a problem's declared functions and the record types they
// use. The zero of *Declaration (nil) declares nothing.
type Declaration struct {
	Functions []*Function
	Records   []*RecordType // sorted by name
	byName    map[string]*RecordType
}

// Function is one declared function. Result nil: it returns nothing (null).
type Function struct {
	Name        string
	Description string
	Params      []Param
	Result      *Type
}

// Param is a parameter of a function or a field of a record.
type Param struct {
	Name string
	Type *Type
}

// RecordType is a named record: a map with exactly these fields (an
// optional field may be left out).
type RecordType struct {
	Name        string
	Description string
	Fields      []Param
}

// Record finds a declared record by name.
func (d *Declaration) Record(name string) *RecordType {
	if d == nil {
		return nil
	}
	return d.byName[name]
}

// Function finds a declared function by name.
func (d *Declaration) Function(name string) *Function {
	if d == nil {
		return nil
	}
	for _, f := range d.Functions {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FieldError says which field of problem.json is wrong, in its JSON path
// ("functions[0].params[1].type").
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Limits of a declaration: it travels to the evaluator in an environment
// variable and into generated code.
const (
	MaxFunctions      = 256
	MaxParams         = 64
	MaxRecords        = 256
	MaxFields         = 256
	MaxNameLen        = 64
	MaxDescriptionLen = 500
	MaxEnvBytes       = 64 << 10
)

type paramFile struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type functionFile struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Params      []paramFile `json:"params"`
	Result      *string     `json:"result"`
}

type recordFile struct {
	Description string      `json:"description"`
	Fields      []paramFile `json:"fields"`
}

// Parse reads problem.json's "functions" and "types" (raw JSON, either
// may be absent). Nothing declared gives nil, nil. The error is a
// *FieldError naming the field.
func Parse(functions, types json.RawMessage) (*Declaration, error) {
	if isAbsent(functions) && isAbsent(types) {
		return nil, nil
	}
	var ff []functionFile
	if !isAbsent(functions) {
		if err := strictDecode(functions, &ff); err != nil {
			return nil, &FieldError{"functions", err}
		}
	}
	rf := map[string]recordFile{}
	if !isAbsent(types) {
		if err := strictDecode(types, &rf); err != nil {
			return nil, &FieldError{"types", err}
		}
	}
	if len(ff) == 0 {
		return nil, &FieldError{"functions", errors.New("want at least one function (leave functions out to declare none)")}
	}
	if len(ff) > MaxFunctions {
		return nil, &FieldError{"functions", fmt.Errorf("%d functions, more than %d", len(ff), MaxFunctions)}
	}
	if len(rf) > MaxRecords {
		return nil, &FieldError{"types", fmt.Errorf("%d types, more than %d", len(rf), MaxRecords)}
	}
	d := &Declaration{byName: map[string]*RecordType{}}
	known := map[string]bool{}
	for name := range rf {
		if _, ok := scalarNames[name]; ok || name == "list" || name == "map" || name == "optional" {
			return nil, &FieldError{"types." + name, fmt.Errorf("%q is a built-in type", name)}
		}
		if err := checkName(name, "type name"); err != nil {
			return nil, &FieldError{"types." + name, err}
		}
		known[name] = true
	}
	names := make([]string, 0, len(rf))
	for name := range rf {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := rf[name]
		where := "types." + name
		if err := checkDescription(r.Description); err != nil {
			return nil, &FieldError{where + ".description", err}
		}
		fields, err := parseParams(r.Fields, where+".fields", "field", MaxFields, known)
		if err != nil {
			return nil, err
		}
		rt := &RecordType{Name: name, Description: r.Description, Fields: fields}
		d.Records = append(d.Records, rt)
		d.byName[name] = rt
	}
	seen := map[string]int{}
	for i, f := range ff {
		where := fmt.Sprintf("functions[%d]", i)
		if err := checkName(f.Name, "function name"); err != nil {
			return nil, &FieldError{where + ".name", err}
		}
		if j, dup := seen[f.Name]; dup {
			return nil, &FieldError{where + ".name", fmt.Errorf("%q is declared twice (also functions[%d])", f.Name, j)}
		}
		seen[f.Name] = i
		if err := checkDescription(f.Description); err != nil {
			return nil, &FieldError{where + ".description", err}
		}
		params, err := parseParams(f.Params, where+".params", "parameter", MaxParams, known)
		if err != nil {
			return nil, err
		}
		fn := &Function{Name: f.Name, Description: f.Description, Params: params}
		if f.Result != nil {
			if fn.Result, err = ParseType(*f.Result, known); err != nil {
				return nil, &FieldError{where + ".result", err}
			}
		}
		d.Functions = append(d.Functions, fn)
	}
	if env := d.Env(); len(env) > MaxEnvBytes {
		return nil, &FieldError{"functions", fmt.Errorf("the declaration is %d bytes in its compact form, more than %d", len(env), MaxEnvBytes)}
	}
	return d, nil
}

func parseParams(pf []paramFile, where, what string, max int, known map[string]bool) ([]Param, error) {
	if len(pf) > max {
		return nil, &FieldError{where, fmt.Errorf("%d %ss, more than %d", len(pf), what, max)}
	}
	var out []Param
	seen := map[string]int{}
	for i, p := range pf {
		at := fmt.Sprintf("%s[%d]", where, i)
		if err := checkName(p.Name, what+" name"); err != nil {
			return nil, &FieldError{at + ".name", err}
		}
		if j, dup := seen[p.Name]; dup {
			return nil, &FieldError{at + ".name", fmt.Errorf("%q is used twice (also [%d])", p.Name, j)}
		}
		seen[p.Name] = i
		if p.Type == "" {
			return nil, &FieldError{at + ".type", fmt.Errorf("missing (known: %s)", knownTypes)}
		}
		t, err := ParseType(p.Type, known)
		if err != nil {
			return nil, &FieldError{at + ".type", err}
		}
		out = append(out, Param{Name: p.Name, Type: t})
	}
	return out, nil
}

func isAbsent(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// strictDecode decodes raw into v with errors in a user's words. Unknown
// fields are left to the schema, as everywhere in problem.json (an error
// for tether problem check, a warning for tether judge).
func strictDecode(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			at := ""
			if te.Field != "" {
				at = te.Field + ": "
			}
			return fmt.Errorf("%swant %s, got %s", at, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "ptr":
		return "a string"
	}
	return goKind
}

// checkName: an identifier every built-in language accepts as a function,
// parameter or type name.
func checkName(name, what string) error {
	if name == "" {
		return fmt.Errorf("missing %s", what)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("%s %q is longer than %d bytes", what, name, MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !isIdentByte(name[i], i > 0) {
			return fmt.Errorf("%s %q: want letters, digits and _ (not starting with a digit)", what, name)
		}
	}
	if reserved[name] {
		return fmt.Errorf("%s %q is a keyword or reserved name in one of the solution languages", what, name)
	}
	if strings.HasPrefix(strings.ToLower(name), "tether") || strings.HasPrefix(name, "__") {
		return fmt.Errorf("%s %q: names starting with tether or __ belong to the generated glue", what, name)
	}
	return nil
}

func checkDescription(s string) error {
	if len(s) > MaxDescriptionLen {
		return fmt.Errorf("%d bytes, more than %d (one line)", len(s), MaxDescriptionLen)
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029 {
			return errors.New("want one line without control characters")
		}
	}
	if strings.Contains(s, "*/") {
		return errors.New(`must not contain "*/" (it is written into comments of generated code)`)
	}
	return nil
}

// reserved are the keywords (and names the generated glue or a language's
// entry point needs) of Python, C, C++, Java, JavaScript, Go and Rust.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		main Solution solution
		False None True and as assert async await break class continue def del elif else except
		finally for from global if import in is lambda nonlocal not or pass raise return try while with yield
		auto char const default do double enum extern float goto inline int long register restrict short
		signed sizeof static struct switch typedef union unsigned void volatile bool true false
		alignas alignof asm catch char16_t char32_t char8_t concept consteval constexpr constinit
		const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export friend
		mutable namespace new noexcept nullptr operator private protected public reinterpret_cast
		requires static_assert static_cast template this thread_local throw typeid typename using
		virtual wchar_t and_eq bitand bitor compl not_eq or_eq xor xor_eq
		abstract boolean byte extends final implements instanceof interface native package
		strictfp super synchronized throws transient var record sealed permits yield
		arguments debugger eval function let null typeof undefined
		chan fallthrough func go map range select type init error len make nil iota
		crate dyn fn impl loop match mod move mut pub ref self Self trait unsafe where
		abstract become box final macro override priv typeof unsized virtual
		std string vector optional
	`) {
		m[w] = true
	}
	return m
}()

// Env is the declaration in the compact form the judge hands the
// evaluator in TETHER_FUNCTIONS (docs/protocol/judge.md): types as Tree.
func (d *Declaration) Env() string {
	if d == nil {
		return ""
	}
	type param struct {
		Name string `json:"name"`
		Type any    `json:"type"`
	}
	type function struct {
		Name   string  `json:"name"`
		Params []param `json:"params"`
		Result any     `json:"result"`
	}
	type record struct {
		Fields []param `json:"fields"`
	}
	out := struct {
		Functions []function        `json:"functions"`
		Types     map[string]record `json:"types"`
	}{Types: map[string]record{}}
	tree := func(ps []Param) []param {
		res := []param{}
		for _, p := range ps {
			res = append(res, param{p.Name, p.Type.Tree()})
		}
		return res
	}
	for _, f := range d.Functions {
		var result any
		if f.Result != nil {
			result = f.Result.Tree()
		}
		out.Functions = append(out.Functions, function{f.Name, tree(f.Params), result})
	}
	for _, r := range d.Records {
		out.Types[r.Name] = record{tree(r.Fields)}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err) // strings and maps of strings only
	}
	return string(b)
}

// EnvName is the evaluator's environment variable holding Env.
const EnvName = "TETHER_FUNCTIONS"
