package codec

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// The TYPED notation of testdata/codec/README.md, turned into Go values.

type tupleValue struct{ Items []any } // Python tuple: not transferable
type setValue struct{ Items []any }   // Python set: not transferable

// typedFromString is the value of a TYPED scalar written as a string.
func typedFromString(kind, s string) (any, error) {
	switch kind {
	case "int":
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("bad int %q", s)
		}
		if n.IsInt64() {
			return n.Int64(), nil
		}
		return n, nil
	case "float":
		return strconv.ParseFloat(s, 64) // accepts NaN, Infinity, -Infinity, -0.0
	case "bytes":
		b, err := base64.StdEncoding.DecodeString(s)
		if b == nil {
			b = []byte{}
		}
		return b, err
	}
	return s, nil
}

func typedToGo(raw json.RawMessage) (any, error) {
	var t map[string]json.RawMessage
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	if len(t) != 1 {
		return nil, fmt.Errorf("TYPED must have one key: %s", raw)
	}
	for kind, body := range t {
		switch kind {
		case "null":
			return nil, nil
		case "bool":
			var b bool
			err := json.Unmarshal(body, &b)
			return b, err
		case "int", "float", "str", "bytes": // each written as a JSON string
			var s string
			if err := json.Unmarshal(body, &s); err != nil {
				return nil, err
			}
			return typedFromString(kind, s)
		case "list", "tuple", "set":
			var items []json.RawMessage
			if err := json.Unmarshal(body, &items); err != nil {
				return nil, err
			}
			list := []any{}
			for _, item := range items {
				v, err := typedToGo(item)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			switch kind {
			case "tuple":
				return tupleValue{list}, nil
			case "set":
				return setValue{list}, nil
			}
			return list, nil
		case "map":
			return typedMap(body)
		case "object":
			return func() {}, nil
		}
		return nil, fmt.Errorf("unknown TYPED kind %q", kind)
	}
	panic("unreachable")
}

// typedMap gives map[string]any when every key is a string, else
// map[any]any (for the non-string key cases).
func typedMap(body json.RawMessage) (any, error) {
	var pairs [][2]json.RawMessage
	if err := json.Unmarshal(body, &pairs); err != nil {
		return nil, err
	}
	strKeys := map[string]any{}
	anyKeys := map[any]any{}
	allStrings := true
	for _, p := range pairs {
		k, err := typedToGo(p[0])
		if err != nil {
			return nil, err
		}
		v, err := typedToGo(p[1])
		if err != nil {
			return nil, err
		}
		if ks, ok := k.(string); ok {
			strKeys[ks] = v
		} else {
			allStrings = false
		}
		anyKeys[k] = v
	}
	if allStrings {
		return strKeys, nil
	}
	return anyKeys, nil
}

// sameValue compares decoded values by type and value: int64 1 differs
// from float64 1, -0.0 from 0.0, []byte from string; *big.Int by value.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !sameValue(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}
