package sig

import (
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/tether-dev/tether/codec"
)

// Mismatch is a value that does not fit its declared type. Path is where
// inside the value ("" for the value itself, "[2]", `["k"].x`), Got the
// value's kind and Want the type's, both in words ("a string", "an
// integer").
type Mismatch struct {
	Path string
	Got  string
	Want string
}

func (m *Mismatch) Error() string {
	if m.Path == "" {
		return "want " + m.Want + ", got " + m.Got
	}
	return m.Path + ": want " + m.Want + ", got " + m.Got
}

// Returned is how the evaluator words a result that does not fit: "add
// returned a string, expected an integer".
func (m *Mismatch) Returned(function string) string {
	at := ""
	if m.Path != "" {
		at = " at " + m.Path
	}
	return fmt.Sprintf("%s returned %s%s, expected %s", function, m.Got, at, m.Want)
}

// Describe is a type in words, as errors say it: "an integer", "a list",
// "a Point record".
func Describe(t *Type) string {
	switch t.Kind {
	case Int, BigInt:
		return "an integer"
	case Float:
		return "a float"
	case Bool:
		return "a boolean"
	case String:
		return "a string"
	case Bytes:
		return "bytes"
	case List:
		return "a list"
	case Map:
		return "a map"
	case Optional:
		return Describe(t.Elem) + " or null"
	case Record:
		return "a " + t.Name + " record"
	}
	return "any value"
}

// DescribeValue is a value decoded by package codec in words, as errors
// say it: "a string", "null", "an integer out of the 64-bit range".
func DescribeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case *big.Int:
		return "an integer out of the 64-bit range"
	case float64:
		return "a float"
	case string:
		return "a string"
	case []byte:
		return "bytes"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	default:
		return fmt.Sprintf("a %T", v)
	}
}

// Check checks a value decoded by package codec against t and returns it
// as t wants it: an integer where a float is declared becomes a float
// (the one conversion; a list or map is copied only when something inside
// changed). The error is a *Mismatch.
func (d *Declaration) Check(t *Type, v any) (any, error) {
	out, m := d.check(t, v, "", 0)
	if m != nil {
		return nil, m
	}
	return out, nil
}

// CheckArgs checks a call of the declared function fn; args may be any
// values package codec encodes (they are normalized through it first).
// The error names the function, the parameter and its type.
func (d *Declaration) CheckArgs(fn string, args []any) ([]any, error) {
	f := d.Function(fn)
	if f == nil {
		return nil, fmt.Errorf("%s is not a declared function (declared: %s)", fn, d.names())
	}
	if len(args) != len(f.Params) {
		return nil, fmt.Errorf("%s takes %d arguments (%s), got %d", fn, len(f.Params), f.Signature(), len(args))
	}
	out := make([]any, len(args))
	for i, a := range args {
		p := f.Params[i]
		v, err := normalize(a)
		if err != nil {
			return nil, fmt.Errorf("%s: parameter %s (%s): %v", fn, p.Name, p.Type, err)
		}
		if out[i], err = d.Check(p.Type, v); err != nil {
			return nil, fmt.Errorf("%s: parameter %s (%s): %v", fn, p.Name, p.Type, err)
		}
	}
	return out, nil
}

// CheckResult checks what fn returned (decoded); the error's message is
// Mismatch.Returned's.
func (d *Declaration) CheckResult(fn string, v any) (any, error) {
	f := d.Function(fn)
	if f == nil {
		return v, nil
	}
	t := f.Result
	if t == nil {
		if v == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("%s returned %s, expected nothing (null)", fn, DescribeValue(v))
	}
	out, err := d.Check(t, v)
	if m, ok := err.(*Mismatch); ok {
		return nil, fmt.Errorf("%s", m.Returned(fn))
	}
	return out, err
}

func (d *Declaration) names() string {
	var n []string
	for _, f := range d.Functions {
		n = append(n, f.Name)
	}
	return strings.Join(n, ", ")
}

// normalize passes a Go value through the codec, so that int, []int,
// map[string]T and the like are seen as the wire will carry them.
func normalize(v any) (any, error) {
	switch v.(type) {
	case nil, bool, int64, *big.Int, float64, string, []byte:
		return v, nil
	}
	b, err := codec.Marshal(v)
	if err != nil {
		return nil, err
	}
	return codec.Unmarshal(b)
}

func (d *Declaration) check(t *Type, v any, path string, depth int) (any, *Mismatch) {
	bad := func() (any, *Mismatch) { return nil, &Mismatch{Path: path, Got: DescribeValue(v), Want: Describe(t)} }
	switch t.Kind {
	case Any:
		return v, nil
	case Optional:
		if v == nil {
			return nil, nil
		}
		out, m := d.check(t.Elem, v, path, depth)
		if m != nil && m.Path == path {
			m.Want = Describe(t)
		}
		return out, m
	case Int:
		if _, ok := v.(int64); ok {
			return v, nil
		}
		return bad()
	case BigInt:
		switch v.(type) {
		case int64, *big.Int:
			return v, nil
		}
		return bad()
	case Float:
		switch n := v.(type) {
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		case *big.Int:
			f, _ := new(big.Float).SetInt(n).Float64()
			if !math.IsInf(f, 0) {
				return f, nil
			}
		}
		return bad()
	case Bool:
		if _, ok := v.(bool); ok {
			return v, nil
		}
		return bad()
	case String:
		if _, ok := v.(string); ok {
			return v, nil
		}
		return bad()
	case Bytes:
		if _, ok := v.([]byte); ok {
			return v, nil
		}
		return bad()
	case List:
		l, ok := v.([]any)
		if !ok {
			return bad()
		}
		var out []any
		for i, e := range l {
			c, m := d.check(t.Elem, e, path+"["+strconv.Itoa(i)+"]", depth+1)
			if m != nil {
				return nil, m
			}
			if !same(c, e) && out == nil {
				out = append([]any(nil), l...)
			}
			if out != nil {
				out[i] = c
			}
		}
		if out == nil {
			return l, nil
		}
		return out, nil
	case Map:
		mp, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		var out map[string]any
		for _, k := range slices.Sorted(maps.Keys(mp)) {
			e := mp[k]
			c, m := d.check(t.Elem, e, path+"["+strconv.Quote(k)+"]", depth+1)
			if m != nil {
				return nil, m
			}
			if !same(c, e) {
				if out == nil {
					out = maps.Clone(mp)
				}
				out[k] = c
			}
		}
		if out == nil {
			return mp, nil
		}
		return out, nil
	case Record:
		r := d.Record(t.Name)
		mp, ok := v.(map[string]any)
		if !ok || r == nil {
			return bad()
		}
		known := map[string]bool{}
		var out map[string]any
		for _, f := range r.Fields {
			known[f.Name] = true
			e, present := mp[f.Name]
			at := path + "." + f.Name
			if !present {
				if f.Type.Kind == Optional || f.Type.Kind == Any {
					continue
				}
				return nil, &Mismatch{Path: at, Got: "nothing (the field is missing)", Want: Describe(f.Type)}
			}
			c, m := d.check(f.Type, e, at, depth+1)
			if m != nil {
				return nil, m
			}
			if !same(c, e) {
				if out == nil {
					out = maps.Clone(mp)
				}
				out[f.Name] = c
			}
		}
		for _, k := range slices.Sorted(maps.Keys(mp)) {
			if !known[k] {
				return nil, &Mismatch{Path: path + "." + k, Got: "a field " + t.Name + " does not have", Want: "only the fields of " + t.Name}
			}
		}
		if out == nil {
			return mp, nil
		}
		return out, nil
	}
	return bad()
}

// same reports whether a checked value is the one it was made from (only
// the int-to-float conversion changes anything).
func same(a, b any) bool {
	switch a.(type) {
	case float64:
		_, was := b.(float64)
		return was
	case []any, map[string]any:
		return sameRef(a, b)
	}
	return true
}

func sameRef(a, b any) bool {
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	return ra.Type() == rb.Type() && ra.Len() == rb.Len() && (ra.Len() == 0 || ra.Pointer() == rb.Pointer())
}
