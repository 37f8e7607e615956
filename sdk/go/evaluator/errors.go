package evaluator

import (
	"errors"

	"github.com/tether-dev/tether/codec"
	"github.com/tether-dev/tether/sdk/go/internal/peer"
)

// Conditions of a failed Call, for errors.Is. A remote failure is a
// *CallError that matches the sentinel of its code.
var (
	ErrNotFound    = errors.New("function not registered")               // code NotFound
	ErrRejected    = errors.New("value or frame rejected")               // code Rejected, or refused before sending
	ErrCallTimeout = errors.New("call timed out")                        // code CallTimeout
	ErrException   = errors.New("solution raised an exception")          // code Exception
	ErrSystem      = errors.New("system error")                          // any other code
	ErrClosed      = peer.ErrClosed                                      // the channel closed; no frame will come
	ErrResultDone  = errors.New("evaluator: result was already written") // a second result
)

// CallError is an error frame received for a call.
type CallError struct {
	Fn      string
	Code    string
	Message string
	Trace   string
}

func (e *CallError) Error() string {
	s := "evaluator: call " + e.Fn + ": " + e.Code + ": " + e.Message
	if e.Trace != "" {
		s += "\n" + e.Trace
	}
	return s
}

// Unwrap maps the code to its sentinel.
func (e *CallError) Unwrap() error {
	switch e.Code {
	case codec.CodeNotFound:
		return ErrNotFound
	case codec.CodeRejected:
		return ErrRejected
	case codec.CodeCallTimeout:
		return ErrCallTimeout
	case codec.CodeException:
		return ErrException
	}
	return ErrSystem
}
