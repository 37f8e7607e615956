package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// envelope is one parsed message. Every slice points into the line it was
// parsed from, so an envelope is valid only as long as that line.
type envelope struct {
	id, method, params, result, errObj []byte

	hasID, hasMethod, hasResult, hasError bool

	// invalid is empty for a valid envelope, otherwise why it is not one.
	invalid string
	// idValid says id may be echoed in an error response.
	idValid bool
}

func (e *envelope) isResponse() bool { return !e.hasMethod && (e.hasResult || e.hasError) }

func (e *envelope) isNotification() bool { return e.hasMethod && !e.hasID }

// lineKind is what a whole line turned out to be.
type lineKind uint8

const (
	lineNotJSON    lineKind = iota // bytes that are not JSON: -32700
	lineSingle                     // one JSON value (maybe not a valid envelope)
	lineBatch                      // a non-empty array
	lineEmptyBatch                 // "[]": one -32600
)

// parseLine classifies line and parses its envelopes into dst, which is
// reused (dst[:0]) and returned. It never allocates except to grow dst and
// to unescape member names that contain escapes.
func parseLine(line []byte, dst []envelope) (lineKind, []envelope) {
	dst = dst[:0]
	i := skipSpace(line, 0)
	if i < len(line) && line[i] == '[' {
		j := skipSpace(line, i+1)
		if j < len(line) && line[j] == ']' {
			if skipSpace(line, j+1) != len(line) {
				return lineNotJSON, dst
			}
			return lineEmptyBatch, dst
		}
		for {
			var end int
			dst = append(dst, envelope{})
			end = parseValueEnvelope(line, j, &dst[len(dst)-1])
			if end < 0 {
				return lineNotJSON, dst[:0]
			}
			j = skipSpace(line, end)
			if j >= len(line) {
				return lineNotJSON, dst[:0]
			}
			if line[j] == ']' {
				break
			}
			if line[j] != ',' {
				return lineNotJSON, dst[:0]
			}
			j = skipSpace(line, j+1)
		}
		if skipSpace(line, j+1) != len(line) {
			return lineNotJSON, dst[:0]
		}
		return lineBatch, dst
	}
	dst = append(dst, envelope{})
	end := parseValueEnvelope(line, i, &dst[0])
	if end < 0 || skipSpace(line, end) != len(line) {
		return lineNotJSON, dst[:0]
	}
	return lineSingle, dst
}

// parseValueEnvelope validates the JSON value at data[i] and, if it is an
// object, fills env from its members. It returns the end of the value or -1
// if the bytes are not JSON. A value that is JSON but no envelope sets
// env.invalid.
func parseValueEnvelope(data []byte, i int, env *envelope) int {
	if i >= len(data) || data[i] != '{' {
		end := skipValue(data, i, 1)
		env.invalid = "not an object"
		return end
	}
	var seen uint8
	i = messageSyntax.Members(data, i, func(key, value []byte) {
		setMember(env, &seen, key[1:len(key)-1], value)
	})
	if i < 0 {
		return -1
	}
	checkEnvelope(env, seen)
	return i
}

const (
	memberVersion uint8 = 1 << iota
	memberID
	memberMethod
	memberParams
	memberResult
	memberError
)

// setMember records one member; names are compared case-sensitively after
// unescaping, so "Method" is an unknown member, not "method".
func setMember(env *envelope, seen *uint8, rawKey, value []byte) {
	name := rawKey
	if bytes.IndexByte(rawKey, '\\') >= 0 {
		var s string
		quoted := make([]byte, 0, len(rawKey)+2)
		quoted = append(append(append(quoted, '"'), rawKey...), '"')
		if json.Unmarshal(quoted, &s) != nil {
			s = string(rawKey)
		}
		name = []byte(s)
	}
	var bit uint8
	switch string(name) {
	case "jsonrpc":
		bit = memberVersion
		if !isVersion(value) {
			env.fail(`"jsonrpc" must be exactly "2.0"`)
		}
	case "id":
		bit = memberID
		env.id, env.hasID = value, true
	case "method":
		bit = memberMethod
		env.method, env.hasMethod = value, true
	case "params":
		bit = memberParams
		env.params = value
	case "result":
		bit = memberResult
		env.result, env.hasResult = value, true
	case "error":
		bit = memberError
		env.errObj, env.hasError = value, true
	default:
		env.fail("unknown member " + string(rawKey) + " (member names are case-sensitive)")
		return
	}
	if *seen&bit != 0 {
		env.fail("duplicate member " + string(name))
	}
	*seen |= bit
}

func (e *envelope) fail(reason string) {
	if e.invalid == "" {
		e.invalid = reason
	}
}

func isVersion(v []byte) bool {
	if string(v) == `"2.0"` {
		return true
	}
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') < 0 {
		return false
	}
	var s string
	return json.Unmarshal(v, &s) == nil && s == "2.0"
}

// checkEnvelope applies the shape rules once all members are known.
func checkEnvelope(env *envelope, seen uint8) {
	if env.hasID {
		switch c := env.id[0]; {
		case c == '"', c == 'n', c == '-', c >= '0' && c <= '9':
			env.idValid = true
		default:
			env.fail(`"id" must be a string, a number or null`)
		}
	}
	if seen&memberVersion == 0 {
		env.fail(`missing "jsonrpc"`)
	}
	switch {
	case env.hasMethod:
		if env.method[0] != '"' {
			env.fail(`"method" must be a string`)
		}
		if env.hasResult || env.hasError {
			env.fail(`a request cannot carry "result" or "error"`)
		}
		if env.params != nil && env.params[0] != '[' && env.params[0] != '{' {
			env.fail(`"params" must be an array or an object`)
		}
	case env.hasResult || env.hasError:
		if env.hasResult && env.hasError {
			env.fail(`a response carries "result" or "error", not both`)
		}
		if !env.hasID {
			env.fail(`a response needs an "id"`)
		}
		if env.params != nil {
			env.fail(`a response cannot carry "params"`)
		}
	default:
		env.fail(`missing "method"`)
	}
}

// unquote decodes a JSON string; the fast path (no escapes) copies once.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
