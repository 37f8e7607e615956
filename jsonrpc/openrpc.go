package jsonrpc

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// MethodDoc describes a method for rpc.discover. Register records Params
// and Result from its type parameters; Describe adds a summary or replaces
// a type (a handler that returns json.RawMessage says what it holds).
type MethodDoc struct {
	Summary string
	// Params is a struct whose JSON fields are the by-name params; nil
	// means the method takes none.
	Params reflect.Type
	Result reflect.Type // nil: the result is null
}

// Schemaer is a type that describes its own JSON form (an enum written as
// strings, a value with custom encoding), as a JSON Schema object.
type Schemaer interface {
	JSONSchema() map[string]any
}

// Describe sets method's documentation; the zero fields of doc keep what
// Register recorded. Call it, like Add, before the Mux serves.
func (m *Mux) Describe(method string, doc MethodDoc) {
	old := m.docs[method]
	if doc.Summary == "" {
		doc.Summary = old.Summary
	}
	if doc.Params == nil {
		doc.Params = old.Params
	}
	if doc.Result == nil {
		doc.Result = old.Result
	}
	m.docs[method] = doc
}

// DiscoverInfo is the "info" object of the OpenRPC document.
type DiscoverInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

// AddDiscover registers rpc.discover, which answers an OpenRPC 1.3
// document of every other method registered on m, its params and result
// described by JSON Schemas generated from their Go types. The document is
// built when first asked for, so register every method before serving.
func AddDiscover(m *Mux, info DiscoverInfo) {
	var doc json.RawMessage
	m.AddFunc("rpc.discover", func(context.Context, *Request) (any, error) {
		if doc == nil {
			b, err := json.Marshal(m.OpenRPC(info))
			if err != nil {
				return nil, err
			}
			doc = b
		}
		return doc, nil
	})
}

// OpenRPC returns the OpenRPC document of m's methods (rpc.discover
// excluded), sorted by name.
func (m *Mux) OpenRPC(info DiscoverInfo) map[string]any {
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range m.methods {
			if name != "rpc.discover" && !yield(name) {
				return
			}
		}
	})
	methods := make([]any, 0, len(names))
	for _, name := range names {
		d := m.docs[name]
		params := []any{}
		if d.Params != nil {
			for _, f := range jsonFields(d.Params) {
				params = append(params, map[string]any{"name": f.name, "required": f.required, "schema": schemaOf(f.typ, nil)})
			}
		}
		result := d.Result
		for result != nil && result.Kind() == reflect.Pointer {
			result = result.Elem() // an answered result is never null
		}
		method := map[string]any{"name": name, "paramStructure": "by-name", "params": params,
			"result": map[string]any{"name": "result", "schema": schemaOf(result, nil)}}
		if d.Summary != "" {
			method["summary"] = d.Summary
		}
		methods = append(methods, method)
	}
	return map[string]any{"openrpc": "1.3.2", "info": info, "methods": methods}
}

type jsonField struct {
	name     string
	typ      reflect.Type
	required bool
}

// jsonFields lists the JSON members of struct type t as encoding/json sees
// them: exported fields by their tag name, embedded structs flattened.
// A member is required unless it is omitempty, a pointer, or tagged
// `openrpc:"optional"` (a default applies when it is absent).
func jsonFields(t reflect.Type) []jsonField {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		optional := strings.Contains(","+opts+",", ",omitempty,") || f.Type.Kind() == reflect.Pointer ||
			f.Tag.Get("openrpc") == "optional"
		out = append(out, jsonField{name: name, typ: f.Type, required: !optional})
	}
	return out
}

var schemaerType = reflect.TypeFor[Schemaer]()

// schemaOf is the JSON Schema of how encoding/json writes and reads t.
// seen holds the struct types being described, so that a recursive type
// ends in {} instead of looping.
func schemaOf(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	if t == nil {
		return map[string]any{"type": "null"}
	}
	if t.Implements(schemaerType) {
		return reflect.Zero(t).Interface().(Schemaer).JSONSchema()
	}
	if t == rawMessageType {
		return map[string]any{} // any JSON value; the method's documentation says which
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Pointer:
		return orNull(schemaOf(t.Elem(), seen))
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return orNull(map[string]any{"type": "string", "contentEncoding": "base64"})
		}
		return orNull(map[string]any{"type": "array", "items": schemaOf(t.Elem(), seen)})
	case reflect.Map:
		return orNull(map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), seen)})
	case reflect.Struct:
		if seen[t] {
			return map[string]any{}
		}
		if seen == nil {
			seen = map[reflect.Type]bool{}
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		required := []string{}
		for _, f := range jsonFields(t) {
			props[f.name] = schemaOf(f.typ, seen)
			if f.required {
				required = append(required, f.name)
			}
		}
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return map[string]any{}
}

// orNull widens s to admit null, as a nil pointer, slice or map is written.
func orNull(s map[string]any) map[string]any {
	if typ, ok := s["type"].(string); ok {
		widened := make(map[string]any, len(s))
		for k, v := range s {
			widened[k] = v
		}
		widened["type"] = []string{typ, "null"}
		return widened
	}
	if len(s) == 0 {
		return s
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}
