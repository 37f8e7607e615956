package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// paramsError turns encoding/json's error for params into one in the
// client's terms: the JSON path of the field and the kinds in words
// ("solution: want an object, got string"), never a Go struct or type name.
func paramsError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			field = "params"
		}
		return fmt.Errorf("%s: want %s, got %s", field, jsonKind(typeErr.Type), typeErr.Value)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return fmt.Errorf("params: not valid JSON at byte %d", syntaxErr.Offset)
	}
	return err
}

// jsonKind names the JSON a Go type is decoded from.
func jsonKind(t reflect.Type) string {
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
		return jsonKind(t.Elem())
	}
	return "a value"
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()
