package sig

import (
	"fmt"
	"strings"
)

// Signature is a function as problem.json declares it, for people:
// "add(a: bigint, b: bigint) -> bigint".
func (f *Function) Signature() string {
	s := f.Name + "(" + joinParams(f, func(p Param) string { return p.Name + ": " + p.Type.String() }) + ")"
	if f.Result != nil {
		s += " -> " + f.Result.String()
	}
	return s
}

// CppType is how C++ (the tether.hpp host) spells t.
func CppType(t *Type) string { return cppTypes.of(t) }

var cppTypes = perKind{
	Int: "long long", Float: "double", Bool: "bool", String: "std::string", Bytes: "tether::bytes",
	List: "std::vector<%s>", Map: "std::map<std::string, %s>", Optional: "std::optional<%s>",
	// bigint (digits beyond 64 bits), records and any: the host's JSON value.
	Any: "tether::json",
}

// CppSignature is the C++ declaration the glue expects:
// "long long add(long long a, long long b)".
func CppSignature(f *Function) string {
	result := "void"
	if f.Result != nil {
		result = CppType(f.Result)
	}
	return result + " " + f.Name + "(" + joinParams(f, func(p Param) string { return CppType(p.Type) + " " + p.Name }) + ")"
}

// PythonType is the Python annotation of t (typing names Python 3.9
// understands).
func PythonType(t *Type) string { return pythonTypes.of(t) }

var pythonTypes = perKind{
	Int: "int", BigInt: "int", Float: "float", Bool: "bool", String: "str", Bytes: "bytes",
	List: "List[%s]", Map: "Dict[str, %s]", Optional: "Optional[%s]", Record: "dict", Any: "Any",
}

// PythonSignature is the def line a Python solution gives:
// "def add(a: int, b: int) -> int".
func PythonSignature(f *Function) string {
	result := "None"
	if f.Result != nil {
		result = PythonType(f.Result)
	}
	params := joinParams(f, func(p Param) string { return p.Name + ": " + PythonType(p.Type) })
	return fmt.Sprintf("def %s(%s) -> %s", f.Name, params, result)
}

// JavaScriptType is the JSDoc type of t as the JavaScript host passes it:
// integers are numbers, BigInt beyond 2^53.
func JavaScriptType(t *Type) string { return javascriptTypes.of(t) }

var javascriptTypes = perKind{
	Int: "number|bigint", BigInt: "number|bigint", Float: "number", Bool: "boolean", String: "string", Bytes: "Uint8Array",
	List: "Array<%s>", Map: "Object<string, %s>", Optional: "(%s)|null", Record: "Object", Any: "*",
}

// JavaScriptSignature is the function a JavaScript solution gives:
// "function add(a, b)".
func JavaScriptSignature(f *Function) string {
	return "function " + f.Name + "(" + joinParams(f, func(p Param) string { return p.Name }) + ")"
}

// JavaType is how a Java solution's static method spells t (with
// java.math.BigInteger and java.util.List and Map imported): "long",
// "List<Long>"; an optional is the boxed, nullable type.
func JavaType(t *Type) string { return javaType(t, false, false) }

// javaType is t in Java: boxed for a type argument or an optional,
// qualified (java.util.List) for the generated glue, which imports nothing.
func javaType(t *Type, boxed, qualified bool) string {
	pkg := func(p, name string) string {
		if qualified {
			return p + "." + name
		}
		return name
	}
	switch t.Kind {
	case Int:
		if boxed {
			return "Long"
		}
		return "long"
	case BigInt:
		return pkg("java.math", "BigInteger")
	case Float:
		if boxed {
			return "Double"
		}
		return "double"
	case Bool:
		if boxed {
			return "Boolean"
		}
		return "boolean"
	case String:
		return "String"
	case Bytes:
		return "byte[]"
	case List:
		return pkg("java.util", "List") + "<" + javaType(t.Elem, true, qualified) + ">"
	case Map:
		return pkg("java.util", "Map") + "<String, " + javaType(t.Elem, true, qualified) + ">"
	case Optional:
		return javaType(t.Elem, true, qualified)
	}
	return "Object" // records and any: the host's generic value
}

// JavaSignature is the static method a Java solution's class Solution
// gives: "static long add(long a, long b)".
func JavaSignature(f *Function) string { return javaSignature(f, false) }

func javaSignature(f *Function, qualified bool) string {
	result := "void"
	if f.Result != nil {
		result = javaType(f.Result, false, qualified)
	}
	params := joinParams(f, func(p Param) string { return javaType(p.Type, false, qualified) + " " + p.Name })
	return "static " + result + " " + f.Name + "(" + params + ")"
}

// RustType is how a Rust solution spells t (with the glue's prelude:
// Value, Bytes, BTreeMap): "i64", "Vec<Option<String>>".
func RustType(t *Type) string { return rustType(t, false) }

// rustType is t in Rust; qualified spells every path out, for the
// generated glue, which must not depend on the solution's imports.
func rustType(t *Type, qualified bool) string {
	path := func(full, short string) string {
		if qualified {
			return full
		}
		return short
	}
	switch t.Kind {
	case Int:
		return "i64"
	case Float:
		return "f64"
	case Bool:
		return "bool"
	case String:
		return path("::std::string::String", "String")
	case Bytes:
		return path("crate::tether::Bytes", "Bytes")
	case List:
		return path("::std::vec::Vec", "Vec") + "<" + rustType(t.Elem, qualified) + ">"
	case Map:
		return path("::std::collections::BTreeMap", "BTreeMap") + "<" + path("::std::string::String", "String") + ", " + rustType(t.Elem, qualified) + ">"
	case Optional:
		return path("::std::option::Option", "Option") + "<" + rustType(t.Elem, qualified) + ">"
	}
	// bigint (digits beyond 64 bits), records and any: the host's Value.
	return path("crate::tether::Value", "Value")
}

// RustSignature is the function a Rust solution gives:
// "fn add(a: i64, b: i64) -> i64".
func RustSignature(f *Function) string {
	s := "fn " + f.Name + "(" + joinParams(f, func(p Param) string { return p.Name + ": " + RustType(p.Type) }) + ")"
	if f.Result != nil {
		s += " -> " + RustType(f.Result)
	}
	return s
}

// rustFnPointer is the type of f as a Rust fn pointer, spelt out:
// "fn(i64, i64) -> i64".
func rustFnPointer(f *Function) string {
	s := "fn(" + joinParams(f, func(p Param) string { return rustType(p.Type, true) }) + ")"
	if f.Result != nil {
		s += " -> " + rustType(f.Result, true)
	}
	return s
}

// CType is how a C solution spells t as a parameter (result false) or a
// result: long long, double, bool, const char * (NUL-terminated), and the
// host's value for the rest (const for a parameter: the host owns it; a
// result is a new value the host frees, NULL for null).
func CType(t *Type, result bool) string {
	switch t.Kind {
	case Int:
		return "long long"
	case Float:
		return "double"
	case Bool:
		return "bool"
	case String:
		return "const char *"
	}
	if result {
		return "tether_value *"
	}
	return "const tether_value *"
}

// CSignature is the C declaration the glue expects:
// "long long add(long long a, long long b)".
func CSignature(f *Function) string {
	result := "void"
	if f.Result != nil {
		result = CType(f.Result, true)
	}
	params := joinParams(f, func(p Param) string { return cDeclaration(CType(p.Type, false), p.Name) })
	if params == "" {
		params = "void"
	}
	return cDeclaration(result, f.Name) + "(" + params + ")"
}

// cDeclaration declares name as a typ: "long long a", "const char *s".
func cDeclaration(typ, name string) string {
	if strings.HasSuffix(typ, "*") {
		return typ + name
	}
	return typ + " " + name
}

// GoType is how a Go solution spells t (with "math/big" imported):
// "int64", "[]*big.Int", "map[string]*float64"; a record is the struct
// of its declared name.
func GoType(t *Type) string { return goType(t, false, "big") }

// goType is t in Go; exported spells a record's name as an exported Go
// name, for a typed client that may live in another package; big is the
// name "math/big" is imported as.
func goType(t *Type, exported bool, big string) string {
	switch t.Kind {
	case Int:
		return "int64"
	case BigInt:
		return "*" + big + ".Int"
	case Float:
		return "float64"
	case Bool:
		return "bool"
	case String:
		return "string"
	case Bytes:
		return "[]byte"
	case List:
		return "[]" + goType(t.Elem, exported, big)
	case Map:
		return "map[string]" + goType(t.Elem, exported, big)
	case Optional:
		return "*" + goType(t.Elem, exported, big)
	case Record:
		if exported {
			return goExported(t.Name)
		}
		return t.Name
	}
	return "any"
}

// GoSignature is the function a Go solution gives:
// "func add(a int64, b int64) int64".
func GoSignature(f *Function) string {
	s := "func " + f.Name + "(" + joinParams(f, func(p Param) string { return p.Name + " " + GoType(p.Type) }) + ")"
	if f.Result != nil {
		s += " " + GoType(f.Result)
	}
	return s
}

// goFuncType is f's type as a Go func type, "math/big" imported as big:
// "func(int64, int64) int64".
func goFuncType(f *Function, big string) string {
	s := "func(" + joinParams(f, func(p Param) string { return goType(p.Type, false, big) }) + ")"
	if f.Result != nil {
		s += " " + goType(f.Result, false, big)
	}
	return s
}

// goExported is name with its first letter upper-cased ("x" → "X").
func goExported(name string) string {
	if name != "" && name[0] >= 'a' && name[0] <= 'z' {
		return string(name[0]-'a'+'A') + name[1:]
	}
	return name
}

// GoFields are the Go names of r's fields: each exported ("label" →
// "Label"), or as declared when two fields would share the exported name.
func GoFields(r *RecordType) []string {
	count := map[string]int{}
	for _, f := range r.Fields {
		count[goExported(f.Name)]++
	}
	out := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		out[i] = goExported(f.Name)
		if count[out[i]] > 1 {
			out[i] = f.Name
		}
	}
	return out
}

// goStruct is r as a Go struct declaration, a field a line, each tagged
// with its declared name.
func goStruct(r *RecordType, exported bool, big string) string {
	var b strings.Builder
	name := r.Name
	if exported {
		name = goExported(name)
	}
	fmt.Fprintf(&b, "type %s struct {\n", name)
	for i, n := range GoFields(r) {
		fmt.Fprintf(&b, "\t%s %s `json:\"%s\"`\n", n, goType(r.Fields[i].Type, exported, big), r.Fields[i].Name)
	}
	b.WriteString("}")
	return b.String()
}

// joinParams is f's parameters, each as spell writes it, between commas.
func joinParams(f *Function, spell func(Param) string) string {
	ps := make([]string, len(f.Params))
	for i, p := range f.Params {
		ps[i] = spell(p)
	}
	return strings.Join(ps, ", ")
}

// perKind is what one language writes for each kind of type: its name
// for the type, with %s standing for the element's in a list, map or
// optional, or the type's default value. A kind without an entry takes
// Any's.
type perKind map[Kind]string

// of is what k writes for t.
func (k perKind) of(t *Type) string {
	s, ok := k[t.Kind]
	if !ok {
		s = k[Any]
	}
	if t.Elem != nil && strings.Contains(s, "%s") {
		s = strings.Replace(s, "%s", k.of(t.Elem), 1)
	}
	return s
}
