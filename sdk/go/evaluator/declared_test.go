package evaluator_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/tether-dev/tether/sdk/go/evaluator"
	"github.com/tether-dev/tether/sdk/go/solution"
)

const addDecl = `{"functions":[{"name":"add","params":[{"name":"a","type":"int"},{"name":"b","type":"int"}],"result":"int"},` +
	`{"name":"mean","params":[{"name":"xs","type":{"list":"float"}}],"result":"float"}],"types":{}}`

// declaredPair is a Runner with addDecl declared, against a Host whose add
// answers a string when a is 0 and whose mean echoes its argument list.
func declaredPair(t *testing.T) (*evaluator.Runner, *int) {
	t.Helper()
	evToSol, evOut := io.Pipe()
	solToEv, solOut := io.Pipe()
	h := solution.New(evToSol, solOut, nil)
	calls := 0
	h.Register("add", func(ctx context.Context, args []any) (any, error) {
		calls++
		if args[0].(int64) == 0 {
			return "zero", nil
		}
		return args[0].(int64) + args[1].(int64), nil
	})
	h.Register("mean", func(ctx context.Context, args []any) (any, error) {
		calls++
		xs := args[0].([]any)
		var sum float64
		for _, x := range xs {
			sum += x.(float64) // the evaluator sent floats, though given ints
		}
		return sum / float64(len(xs)), nil
	})
	served := make(chan error, 1)
	go func() { served <- h.Serve(context.Background()); solOut.Close() }()
	r := evaluator.New(solToEv, evOut, &evaluator.Options{Functions: addDecl, Log: func(string, string) {}})
	t.Cleanup(func() {
		evOut.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		r.Close()
	})
	return r, &calls
}

func TestCallDeclaredChecksArgumentsBeforeSending(t *testing.T) {
	r, calls := declaredPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{1, "2"}, "evaluator: argument does not fit the declared parameter: add: parameter b (int): want an integer, got a string"},
		{[]any{1.5, 2}, "evaluator: argument does not fit the declared parameter: add: parameter a (int): want an integer, got a float"},
		{[]any{1}, "evaluator: argument does not fit the declared parameter: add takes 2 arguments (add(a: int, b: int) -> int), got 1"},
	} {
		_, err := r.CallDeclared(ctx, "add", c.args...)
		if !errors.Is(err, evaluator.ErrArgumentType) || err.Error() != c.want {
			t.Errorf("%v: got %v\nwant %s", c.args, err, c.want)
		}
	}
	if *calls != 0 {
		t.Fatalf("%d calls reached the solution", *calls)
	}
	v, err := r.CallDeclared(ctx, "add", 2, 3)
	if err != nil || v != int64(5) {
		t.Fatalf("add(2, 3) = %v, %v", v, err)
	}
	v, err = r.CallDeclared(ctx, "mean", []int{1, 2})
	if err != nil || v != 1.5 {
		t.Fatalf("mean([1, 2]) = %v, %v", v, err)
	}
}

func TestCallDeclaredResultOfAnotherType(t *testing.T) {
	r, _ := declaredPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := r.CallDeclared(ctx, "add", 0, 1)
	var rt *evaluator.ResultTypeError
	if !errors.As(err, &rt) || rt.Message != "add returned a string, expected an integer" {
		t.Fatalf("got %v", err)
	}
	// the untyped call is unchanged
	if v, err := r.Call(ctx, "add", 0, 1); err != nil || v != "zero" {
		t.Fatalf("Call: %v, %v", v, err)
	}
}

// Without a declaration (a judge that passes none), CallDeclared is Call.
func TestCallDeclaredWithoutDeclarationIsCall(t *testing.T) {
	t.Setenv("TETHER_FUNCTIONS", "")
	p := newPair(t, false, basicFuncs)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if v, err := p.r.CallDeclared(ctx, "echo", "x", 1); err != nil || len(v.([]any)) != 2 {
		t.Fatalf("CallDeclared = %v, %v", v, err)
	}
}
