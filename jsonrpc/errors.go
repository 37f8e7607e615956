package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// Error codes of JSON-RPC 2.0 and the server-defined ones tether uses.
const (
	CodeParseError     = -32700 // the bytes are not JSON
	CodeInvalidRequest = -32600 // JSON, but not a valid envelope
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeOverloaded     = -32000 // too many requests in flight and queued
	CodeFrameTooLarge  = -32001 // a line or frame over the size cap
	CodeCancelled      = -32800 // the request was cancelled (LSP's code)
)

// Error is a JSON-RPC error object. Handlers may return one (or wrap one) to
// choose the code; Call returns one when the peer answered with an error.
// Errors match by code: errors.Is(err, &Error{Code: CodeMethodNotFound}).
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc: error %d: %s (data %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc: error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels matching errors by code, for errors.Is.
var (
	ErrParse          = &Error{Code: CodeParseError, Message: "Parse error"}
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	ErrInvalidParams  = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	ErrInternal       = &Error{Code: CodeInternalError, Message: "Internal error"}
	ErrOverloaded     = &Error{Code: CodeOverloaded, Message: "server overloaded"}
	ErrFrameTooLarge  = &Error{Code: CodeFrameTooLarge, Message: "frame too large"}
	ErrCancelled      = &Error{Code: CodeCancelled, Message: "request cancelled"}
)

// ErrClosed is returned by calls on a connection that has stopped, and by
// calls still waiting when it stopped.
var ErrClosed = errors.New("jsonrpc: connection closed")

// InvalidParamsError is the typed error a handler returns when its params
// do not fit; it is answered with -32602 and the reason in data.
type InvalidParamsError struct {
	Method string
	Err    error
}

func (e *InvalidParamsError) Error() string {
	if e.Method == "" { // built by InvalidParams, inside a handler that knows its method
		return fmt.Sprintf("jsonrpc: invalid params: %v", e.Err)
	}
	return fmt.Sprintf("jsonrpc: %s: invalid params: %v", e.Method, e.Err)
}

func (e *InvalidParamsError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalidParams) true.
func (e *InvalidParamsError) Is(target error) bool { return target == ErrInvalidParams }

// InvalidParams builds an *InvalidParamsError from a format.
func InvalidParams(format string, args ...any) error {
	return &InvalidParamsError{Err: fmt.Errorf(format, args...)}
}

// errorData builds a data member {"k":v,...} from string pairs.
func errorData(pairs ...string) json.RawMessage {
	b := []byte{'{'}
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, pairs[i]) // keys are ASCII identifiers
		b = append(b, ':')
		v, _ := json.Marshal(pairs[i+1])
		b = append(b, v...)
	}
	return append(b, '}')
}

// toWireError maps a handler's error to the error object sent back.
// cancelled says the request's context was cancelled by the peer or by
// Close, which turns context errors into -32800.
func toWireError(method string, err error, cancelled bool) *Error {
	var rpcErr *Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	var ipe *InvalidParamsError
	if errors.As(err, &ipe) {
		return &Error{Code: CodeInvalidParams, Message: "Invalid params", Data: errorData("reason", ipe.Err.Error())}
	}
	if cancelled && (errors.Is(err, errCanceledByPeer) || errors.Is(err, errCanceledByClose) || errors.Is(err, context.Canceled)) {
		return &Error{Code: CodeCancelled, Message: "request cancelled"}
	}
	return &Error{Code: CodeInternalError, Message: "Internal error",
		Data: errorData("exception", exceptionName(err), "message", method+": "+err.Error())}
}

// exceptionName names the type of the innermost error of err's chain, the one
// that says what actually failed (not fmt's wrapper); a recovered panic is
// "panic".
func exceptionName(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			break
		}
		err = next
	}
	if _, ok := err.(*panicError); ok {
		return "panic"
	}
	t := reflect.TypeOf(err)
	return t.String()
}

// panicError is a recovered panic of a handler (or of encoding its result).
// It does not unwrap to the panic value, so a panicking *Error is still
// answered as a panic and not with the code it carries.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return "panic: " + e.valueString() }

func (e *panicError) valueString() string { return fmt.Sprint(e.value) }
