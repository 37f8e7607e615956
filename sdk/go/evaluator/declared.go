package evaluator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tether-dev/tether/sig"
)

// ErrArgumentType: an argument of CallDeclared does not fit its declared
// parameter; nothing was sent. The evaluator is at fault, not the solution.
var ErrArgumentType = errors.New("argument does not fit the declared parameter")

// ResultTypeError: the solution returned a value of another type than the
// declared result. Report it as WrongAnswer with its message ("add
// returned a string, expected an integer").
type ResultTypeError struct {
	Fn      string
	Message string
}

func (e *ResultTypeError) Error() string { return e.Message }

// Declared is the problem's declaration of functions (problem.json
// "functions"), nil when it declares none.
func (r *Runner) Declared() (*sig.Declaration, error) {
	r.declOnce.Do(func() {
		text := r.opts.Functions
		if text == "" {
			text = os.Getenv(sig.EnvName)
		}
		r.decl, r.declErr = sig.ParseEnv(text)
	})
	return r.decl, r.declErr
}

// CallDeclared is Call for a declared function: the arguments are checked
// against its parameters before sending (an error wrapping
// ErrArgumentType names the function, the parameter and its type; an int
// for a float parameter is sent as a float) and the value against its
// result type (*ResultTypeError). Without a declaration it is Call.
func (r *Runner) CallDeclared(ctx context.Context, fn string, args ...any) (any, error) {
	return r.CallDeclaredWithTimeout(ctx, 0, fn, args...)
}

// CallDeclaredWithTimeout is CallDeclared with the frame's timeout_ms set.
func (r *Runner) CallDeclaredWithTimeout(ctx context.Context, timeout time.Duration, fn string, args ...any) (any, error) {
	d, err := r.Declared()
	if err != nil {
		return nil, fmt.Errorf("evaluator: %w", err)
	}
	if d == nil {
		// No declaration reached this evaluator (a judge that passes none,
		// such as Neuro OJ): the call goes out unchecked.
		return r.CallWithTimeout(ctx, timeout, fn, args...)
	}
	checked, err := d.CheckArgs(fn, args)
	if err != nil {
		return nil, fmt.Errorf("evaluator: %w: %v", ErrArgumentType, err)
	}
	v, err := r.CallWithTimeout(ctx, timeout, fn, checked...)
	if err != nil {
		return nil, err
	}
	out, err := d.CheckResult(fn, v)
	if err != nil {
		return nil, &ResultTypeError{Fn: fn, Message: err.Error()}
	}
	return out, nil
}
