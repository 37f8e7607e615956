package lm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/tether-dev/tether/internal/jsonscan"
)

// decodeRequest parses one request frame. ErrInvalidJSON and ErrNotObject
// (wrapped) mean the peer is not speaking the protocol, so the server
// answers and closes. ErrInvalidRequest is a well-formed object with a field
// of the wrong type ("request: depth: want an integer, got string"): it is
// answered like any other bad request and the connection stays open.
//
// The request is its own copy: payload may be overwritten afterwards.
func decodeRequest(payload []byte) (*Request, error) {
	trimmed := bytes.TrimSpace(payload)
	if req, ok := plainRequest(trimmed); ok {
		return req, nil
	}
	if !json.Valid(trimmed) {
		// Decode again only to get the parser's reason; invalid frames are rare.
		var v any
		err := json.Unmarshal(trimmed, &v)
		return nil, fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, ErrNotObject
	}
	var req Request
	if err := json.Unmarshal(trimmed, &req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &fieldError{field: te.Field, want: wantKind(te.Type), got: te.Value}
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidRequest, err)
	}
	return &req, nil
}

var requestSyntax = jsonscan.Syntax{MaxDepth: jsonscan.DefaultMaxDepth}

// Members of a plain request, as plainRequest spells them.
const (
	keyPrompt  = `"prompt"`
	keyPrompts = `"prompts"`
	keyModel   = `"model"`
	keyDepth   = `"depth"`
)

// plainRequest reads the request every client sends in one pass and one
// allocation besides the Request: an object with no other keys than
// "prompt", "prompts", "model" and "depth", each at most once, spelled so,
// with a string model without escapes and an integer depth (either may
// be null). For anything else (other keys, keys in another case or with
// escapes, repeated keys, other types, or not JSON) ok is false and
// encoding/json decides, with its reasons; what plainRequest accepts it
// decodes as encoding/json does.
func plainRequest(b []byte) (req *Request, ok bool) {
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	own := bytes.Clone(b)
	req = &Request{Depth: -1}
	var seen [4]bool
	ok = true
	end := requestSyntax.Members(own, 0, func(key, value []byte) {
		if !ok {
			return
		}
		var k int
		switch string(key) {
		case keyPrompt:
			k = 0
		case keyPrompts:
			k = 1
		case keyModel:
			k = 2
		case keyDepth:
			k = 3
		default:
			ok = false
			return
		}
		if seen[k] {
			ok = false
			return
		}
		seen[k] = true
		null := value[0] == 'n'
		switch {
		case null:
		case k == 0:
			req.Prompt = value
		case k == 1:
			req.Prompts, ok = arrayItems(value)
		case k == 2:
			req.Model, ok = plainString(value)
		case k == 3:
			req.Depth, ok = plainInt(value)
		}
	})
	if !ok || end != len(own) {
		return nil, false
	}
	return req, true
}

// arrayItems splits a checked JSON array into its values.
func arrayItems(v []byte) ([]json.RawMessage, bool) {
	if v[0] != '[' {
		return nil, false
	}
	items := []json.RawMessage{}
	i := jsonscan.SkipSpace(v, 1)
	for v[i] != ']' {
		end := requestSyntax.SkipValue(v, i, 1)
		items = append(items, v[i:end])
		i = jsonscan.SkipSpace(v, end)
		if v[i] == ',' {
			i = jsonscan.SkipSpace(v, i+1)
		}
	}
	return items, true
}

// plainString is a checked JSON string's text when it has no escapes and
// only ASCII (encoding/json would replace invalid UTF-8).
func plainString(v []byte) (string, bool) {
	if v[0] != '"' {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c >= 0x80 {
			return "", false
		}
	}
	return string(v[1 : len(v)-1]), true
}

// plainInt is a checked JSON number's value when it is an integer that fits.
func plainInt(v []byte) (int, bool) {
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

// fieldError is a request field of the wrong JSON type; it is ErrInvalidRequest.
type fieldError struct{ field, want, got string }

func (e *fieldError) Error() string {
	return fmt.Sprintf("request: %s: want %s, got %s", e.field, e.want, e.got)
}

func (e *fieldError) Is(target error) bool { return target == ErrInvalidRequest }

// wantKind names the JSON value a Request field of type t takes.
func wantKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	default:
		return t.String()
	}
}
