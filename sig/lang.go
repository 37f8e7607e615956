package sig

import (
	"fmt"
	"strings"
)

// Signature is a function as problem.json declares it, for people:
// "add(a: bigint, b: bigint) -> bigint".
func (f *Function) Signature() string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Name+": "+p.Type.String())
	}
	s := f.Name + "(" + strings.Join(ps, ", ") + ")"
	if f.Result != nil {
		s += " -> " + f.Result.String()
	}
	return s
}

// CppType is how C++ (the tether.hpp host) spells t.
func CppType(t *Type) string {
	switch t.Kind {
	case Int:
		return "long long"
	case Float:
		return "double"
	case Bool:
		return "bool"
	case String:
		return "std::string"
	case Bytes:
		return "tether::bytes"
	case List:
		return "std::vector<" + CppType(t.Elem) + ">"
	case Map:
		return "std::map<std::string, " + CppType(t.Elem) + ">"
	case Optional:
		return "std::optional<" + CppType(t.Elem) + ">"
	}
	// bigint (digits beyond 64 bits), records and any: the host's JSON value.
	return "tether::json"
}

// CppSignature is the C++ declaration the glue expects:
// "long long add(long long a, long long b)".
func CppSignature(f *Function) string {
	result := "void"
	if f.Result != nil {
		result = CppType(f.Result)
	}
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, CppType(p.Type)+" "+p.Name)
	}
	return result + " " + f.Name + "(" + strings.Join(ps, ", ") + ")"
}

// PythonType is the Python annotation of t (typing names Python 3.9
// understands).
func PythonType(t *Type) string {
	switch t.Kind {
	case Int, BigInt:
		return "int"
	case Float:
		return "float"
	case Bool:
		return "bool"
	case String:
		return "str"
	case Bytes:
		return "bytes"
	case List:
		return "List[" + PythonType(t.Elem) + "]"
	case Map:
		return "Dict[str, " + PythonType(t.Elem) + "]"
	case Optional:
		return "Optional[" + PythonType(t.Elem) + "]"
	case Record:
		return "dict"
	}
	return "Any"
}

// PythonSignature is the def line a Python solution gives:
// "def add(a: int, b: int) -> int".
func PythonSignature(f *Function) string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Name+": "+PythonType(p.Type))
	}
	result := "None"
	if f.Result != nil {
		result = PythonType(f.Result)
	}
	return fmt.Sprintf("def %s(%s) -> %s", f.Name, strings.Join(ps, ", "), result)
}
