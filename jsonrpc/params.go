package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/tether-dev/tether/internal/jsonwords"
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
		return fmt.Errorf("%s: %s", field, jsonwords.WantGot(typeErr))
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return fmt.Errorf("params: not valid JSON at byte %d", syntaxErr.Offset)
	}
	return err
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()
