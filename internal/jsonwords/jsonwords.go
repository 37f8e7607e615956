// Package jsonwords says in a user's words what encoding/json could not
// decode: the JSON kind a field wants ("an object", "an integer"), never a
// Go type name. The judge's problem.json errors and JSON-RPC's params
// errors both use it.
package jsonwords

import (
	"encoding/json"
	"reflect"
)

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// WantGot is "want KIND, got VALUE" for a type error, e.g. "want an
// object, got string".
func WantGot(err *json.UnmarshalTypeError) string {
	return "want " + Kind(err.Type) + ", got " + err.Value
}

// Kind names the JSON a Go type is decoded from.
func Kind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	if t == rawMessageType {
		return "any JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return Kind(t.Elem())
	}
	return "a value"
}
