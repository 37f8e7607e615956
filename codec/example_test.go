package codec_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/tether-dev/tether/codec"
)

func ExampleMarshal() {
	wire, err := codec.Marshal(map[string]any{
		"z": []any{1, 1.0, 1e16, math.Copysign(0, -1)},
		"a": []byte("hi"),
		"é": "<&>",
	})
	fmt.Println(string(wire), err)
	// Output: {"a":{"__bytes__":"aGk="},"z":[1,1.0,1e+16,-0.0],"é":"<&>"} <nil>
}

func ExampleMarshalArgs() {
	_, err := codec.MarshalArgs([]any{1, "x", map[string]any{"k": math.NaN()}})
	var pe *codec.PathError
	fmt.Println(err)
	fmt.Println(errors.As(err, &pe), pe.Path, errors.Is(err, codec.ErrNonFinite))
	// Output:
	// codec: args[2]["k"]: NaN is not transferable
	// true args[2]["k"] true
}

func ExampleUnmarshal() {
	v, err := codec.Unmarshal([]byte(`{"n": 1, "f": 1.0, "big": 18446744073709551616, "b": {"__bytes__": "aGk="}}`))
	m := v.(map[string]any)
	fmt.Printf("%T %T %T %q %v\n", m["n"], m["f"], m["big"], m["b"], err)

	_, err = codec.Unmarshal([]byte(`{"a": [1, {"k": 1, "k": 2}]}`))
	fmt.Println(err, errors.Is(err, codec.ErrDuplicateKey))
	// Output:
	// int64 float64 *big.Int "hi" <nil>
	// codec: value["a"][1]["k"]: duplicate key at offset 19 true
}

func ExampleCheckFrameSize() {
	err := codec.CheckFrameSize(2_000_000)
	fmt.Println(err, errors.Is(err, codec.ErrFrameTooLarge))
	// Output: frame size 2000000 > 1048576 true
}
