package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tether-dev/tether/wire"
)

func ExampleLineReader() {
	input := "{\"type\":\"ready\"}\r\n" + strings.Repeat("x", 40) + "\nlast line without newline"
	lr := wire.NewLineReader(strings.NewReader(input), 32)
	for {
		line, err := lr.ReadLine()
		var tooLong *wire.LineTooLongError
		switch {
		case errors.As(err, &tooLong):
			fmt.Printf("skipped a line of %d bytes\n", tooLong.Length)
			continue
		case err == io.EOF:
			return
		case err != nil:
			panic(err)
		}
		fmt.Printf("%q\n", line)
	}
	// Output:
	// "{\"type\":\"ready\"}"
	// skipped a line of 40 bytes
	// "last line without newline"
}

func ExampleFrameWriter() {
	var stream bytes.Buffer
	fw := wire.NewFrameWriter(&stream, 0)
	fw.WriteFrame([]byte(`{"prompt":"hi","depth":0}`))
	fmt.Printf("% x\n", stream.Bytes()[:4])

	fr := wire.NewFrameReader(&stream, 0)
	payload, _ := fr.ReadFrame()
	fmt.Println(string(payload))
	_, err := fr.ReadFrame()
	fmt.Println(err == io.EOF)
	// Output:
	// 00 00 00 19
	// {"prompt":"hi","depth":0}
	// true
}
