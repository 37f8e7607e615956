package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// encodeReflect is the fallback for named and typed kinds: type MyInt int,
// []string, map[string]int, map[any]any with string keys. Arrays are
// refused like Python tuples: they would read back as lists.
func encodeReflect(dst []byte, v any, depth int) ([]byte, *pathTrace) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return encodeValue(dst, rv.Bool(), depth)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return encodeValue(dst, rv.Int(), depth)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return encodeValue(dst, rv.Uint(), depth)
	case reflect.Float32, reflect.Float64:
		return encodeValue(dst, rv.Float(), depth)
	case reflect.String:
		return appendValidString(dst, rv.String())
	case reflect.Slice:
		if rv.Type() == rawMessageType {
			break // already-encoded JSON: neither bytes nor a value we can vouch for
		}
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return appendBytes(dst, rv.Bytes()), nil
		}
		return encodeSlice(dst, rv, depth)
	case reflect.Map:
		return encodeAnyMap(dst, rv, depth)
	}
	return dst, fail(because(ErrNotTransferable, fmt.Sprintf("value of type %T is not transferable", v)))
}

func encodeSlice(dst []byte, rv reflect.Value, depth int) ([]byte, *pathTrace) {
	if depth >= MaxDepth {
		return dst, tooDeep()
	}
	dst = append(dst, '[')
	for i := range rv.Len() {
		if i > 0 {
			dst = append(dst, ',')
		}
		var trace *pathTrace
		if dst, trace = encodeValue(dst, rv.Index(i).Interface(), depth+1); trace != nil {
			return dst, trace.index(i)
		}
	}
	return append(dst, ']'), nil
}

type mapEntry struct {
	key   string
	value reflect.Value
}

// encodeAnyMap encodes maps with string-kinded keys, or interface keys
// whose dynamic values are all string-kinded.
func encodeAnyMap(dst []byte, rv reflect.Value, depth int) ([]byte, *pathTrace) {
	if depth >= MaxDepth {
		return dst, tooDeep()
	}
	entries := make([]mapEntry, 0, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		k := iter.Key()
		if k.Kind() == reflect.Interface && !k.IsNil() {
			k = k.Elem()
		}
		if k.Kind() != reflect.String {
			return dst, fail(because(ErrNonStringKey,
				fmt.Sprintf("map key %v of type %s is not a string", describeKey(k), typeName(k))))
		}
		entries = append(entries, mapEntry{key: k.String(), value: iter.Value()})
	}
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	if len(entries) == 1 && entries[0].key == bytesKey && isStringValue(entries[0].value.Interface()) {
		return dst, reservedKey()
	}
	dst = append(dst, '{')
	for i, e := range entries {
		if i > 0 {
			if entries[i-1].key == e.key { // e.g. map[any]any{"a": 1, MyString("a"): 2}
				return dst, fail(because(ErrDuplicateKey, "two keys encode as the same string")).key(e.key)
			}
			dst = append(dst, ',')
		}
		if !utf8.ValidString(e.key) {
			return dst, fail(invalidUTF8(e.key, "index", 0)).key(e.key)
		}
		dst = AppendString(dst, e.key)
		dst = append(dst, ':')
		var trace *pathTrace
		if dst, trace = encodeValue(dst, e.value.Interface(), depth+1); trace != nil {
			return dst, trace.key(e.key)
		}
	}
	return append(dst, '}'), nil
}

func describeKey(k reflect.Value) any {
	if !k.IsValid() {
		return "nil"
	}
	return k.Interface()
}

func typeName(k reflect.Value) string {
	if !k.IsValid() {
		return "nil"
	}
	return k.Type().String()
}

// isStringValue reports whether v would encode as a JSON string.
func isStringValue(v any) bool {
	switch v.(type) {
	case string:
		return true
	case nil, json.Number:
		return false
	}
	return reflect.ValueOf(v).Kind() == reflect.String
}
