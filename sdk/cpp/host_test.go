package cppsdk

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/sdk/internal/hosttest"
)

// build compiles testdata/<name> with the host as the judge does: the
// files Files.WriteTo writes beside the source, then Compile.
func build(t *testing.T, name string) string {
	hosttest.Tool(t, "g++", "apt-get install g++")
	return hosttest.Compiled(t, Files.WriteTo, name, "main.cpp", Compile)
}

func TestHost(t *testing.T) {
	dir := build(t, "solution.cpp")
	hosttest.Run(t, hosttest.Lang{Command: Run, Dir: dir, ExceptionPrefix: "std::out_of_range: ", Typed: true})
}

func features(t *testing.T) *hosttest.Host {
	return hosttest.Start(t, hosttest.Lang{Command: Run, Dir: build(t, "features.cpp")})
}

// Output of static initializers and of C++ streams without stdio sync
// comes as logs before the answer; raw writes to fd 1 come as logs too.
func TestOutputPaths(t *testing.T) {
	h := features(t)
	h.Call("a", "add", 1, 2)
	f, logs := h.Answer()
	if f["id"] != "a" || !logged(logs, "static init\n") {
		t.Fatalf("first answer %v after logs %v, want the static initializer's line first", f, logs)
	}
	h.Call("f", "fast", "x")
	if f, logs := h.Answer(); f["id"] != "f" || !logged(logs, "fast:x\n") {
		t.Fatalf("sync_with_stdio(false) output: answer %v after logs %v", f, logs)
	}
	h.Call("f2", "fast", "y") // the streams stay captured
	if f, logs := h.Answer(); f["id"] != "f2" || !logged(logs, "fast:y\n") {
		t.Fatalf("second call: answer %v after logs %v", f, logs)
	}
	h.Call("r", "raw", "z")
	var sawAnswer, sawLog bool
	for !sawAnswer || !sawLog { // forwarded by the pump: before or after the answer
		f := h.Next()
		sawAnswer = sawAnswer || f["id"] == "r"
		sawLog = sawLog || (f["type"] == "log" && f["data"] == "raw:z\n")
	}
	h.Wait()
}

func logged(logs []map[string]any, text string) bool {
	var all string
	for _, l := range logs {
		all += l["data"].(string)
	}
	return strings.Contains(all, text)
}

func TestConversions(t *testing.T) {
	h := features(t)
	h.Send(`{"type":"call","id":"s","fn":"shape","args":[null,{"__bytes__":"aGk="},[[1,2],[3]]]}`)
	if got := string(h.NextLineAfterLogs()); got != `{"type":"result","id":"s","value":{"b":[2.0,0.5],"cells":[3.0],"o":[-1.0]}}` {
		t.Fatalf("shape: %s", got)
	}
	h.Call("s2", "shape", 7, []byte{}, []any{})
	if got := string(h.NextLineAfterLogs()); got != `{"type":"result","id":"s2","value":{"b":[0.0,0.5],"cells":[0.0],"o":[7.0]}}` {
		t.Fatalf("shape: %s", got)
	}
	h.Call("b", "reverse", []byte{1, 2, 3})
	if got := string(h.NextLineAfterLogs()); got != `{"type":"result","id":"b","value":{"__bytes__":"AwIB"}}` {
		t.Fatalf("reverse: %s", got)
	}
	h.Call("r1", "small", 256)
	if f := h.Expect("r1", "error", "Rejected"); f["message"] != "args[0]: integer 256 is out of range [0, 255]" {
		t.Fatalf("out of range: %v", f["message"])
	}
	h.Call("r2", "shape", nil, "not bytes", []any{})
	if f := h.Expect("r2", "error", "Rejected"); f["message"] != "args[1]: expected bytes, got a string" {
		t.Fatalf("wrong kind: %v", f["message"])
	}
	h.Call("r3", "shape", nil, []byte{}, []any{[]any{1, "x"}})
	if f := h.Expect("r3", "error", "Rejected"); f["message"] != "args[2][0][1]: expected an integer, got a string" {
		t.Fatalf("nested path: %v", f["message"])
	}
	// tether::json's 128-bit conversions: 64 bits stay an integer, beyond
	// them digits, to the edges of __int128.
	for _, c := range [][2]string{
		{"[1,2]", "3"},
		{"[1180591620717411303424,1180591620717411303424]", "2361183241434822606848"},
		{"[-1000000000000000000000000000000,1]", "-999999999999999999999999999999"},
		{"[-170141183460469231731687303715884105728,0]", "-170141183460469231731687303715884105728"},
		{"[170141183460469231731687303715884105727,0]", "170141183460469231731687303715884105727"},
		{"[9223372036854775807,1]", "9223372036854775808"},
	} {
		h.Send(`{"type":"call","id":"w","fn":"wide_sum","args":` + c[0] + `}`)
		if got, want := string(h.NextLineAfterLogs()), `{"type":"result","id":"w","value":`+c[1]+`}`; got != want {
			t.Fatalf("wide_sum%s: %s, want %s", c[0], got, want)
		}
	}
	h.Send(`{"type":"call","id":"w2","fn":"wide_sum","args":[170141183460469231731687303715884105728,0]}`)
	if f := h.Expect("w2", "error", "Rejected"); f["message"] != "integer 170141183460469231731687303715884105728 does not fit in 128 bits" {
		t.Fatalf("2^127: %v", f)
	}
	h.Call("n", "nan_value")
	if f := h.Expect("n", "error", "Rejected"); f["message"] != "value: NaN is not transferable" {
		t.Fatalf("NaN result: %v", f["message"])
	}
	h.Wait()
}

// While a call runs long the host keeps reading its stdin, so the judge's
// writes never stall on it (a blocked write for 3 s ends the solution).
func TestReadsDuringLongCall(t *testing.T) {
	h := features(t)
	h.Call("long", "spin", 8000)
	pad := strings.Repeat("p", 4096)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 0; i < 256; i++ { // 1 MiB: far more than a pipe holds
			h.SendAsync(fmt.Sprintf(`{"type":"call","id":"q%d","fn":"add","args":[1,2],"pad":%q}`, i, pad))
		}
	}()
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("1 MiB of calls could not be written while a call ran: the host stopped reading its stdin")
	}
	h.Expect("long", "result", "")
	if got := h.ExpectAll(256); len(got) != 256 {
		t.Fatalf("%d answers", len(got))
	}
}

// The host reads the canonical call frame (compact, type, id, fn, args in
// that order) by its fixed text, and integer and boolean arguments of
// simple args through a fast lane; any other shape goes through the
// general parser and reader: all must answer alike, errors included.
func TestFrameShapes(t *testing.T) {
	h := features(t)
	shapes := []string{
		`{"type":"call","id":"%s","fn":"%s","args":%s}`,
		`{"args":%[3]s,"fn":"%[2]s","id":"%[1]s","type":"call"}`,
		`{ "type" : "call", "id" : "%s", "fn" : "%s", "args" : %s }`,
		`{"type":"call","id":"%s","fn":"%s","args":%s,"timeout_ms":5}`,
	}
	cases := [][2]string{{"add", `[1,2]`}, {"add", `[1,NaN]`}, {"add", `[1,{"a":1,"a":2}]`}, {"add", `[1]`},
		{"add", `[1,2,3]`}, {"add", `["x",2]`}, {"add", `[1, 2]`}, {"add", `[9223372036854775807,1]`},
		{"add", `[-9223372036854775808,1]`}, {"add", `[9223372036854775808,1]`}, {"add", `[-9223372036854775809,1]`},
		{"add", `[12345678901234567890,1]`}, {"add", `[-0,1]`}, {"add", `[1.5,1]`}, {"add", `[true,1]`},
		{"add", `[null,1]`}, {"add", `[[1],1]`}, {"add", `[]`}, {"add", `[1,2,[3]]`}, {"add", "[\"\u00e9\",1]"},
		{"mix", `[true,-2147483648,5]`}, {"mix", `[false,1,4294967295]`}, {"mix", `[false,1,4294967296]`},
		{"mix", `[true,2147483648,0]`}, {"mix", `[false,1,-1]`}, {"mix", `[false,1,-0]`}, {"mix", `[1,1,1]`},
		{"mix", `[true,1]`}, {"mix", `[true,1,2,3]`}, {"mix", `[ true , 7 , 8 ]`}, {"small", `[255]`}, {"small", `[256]`}}
	for i, c := range cases {
		fn, args := c[0], c[1]
		var first map[string]any
		for j, shape := range shapes {
			id := fmt.Sprintf("s%d_%d", i, j)
			h.Send(fmt.Sprintf(shape, id, fn, args))
			f, _ := h.Answer()
			if f["id"] != id {
				t.Fatalf("shape %d, args %s: answer %v, want id %s", j, args, f, id)
			}
			delete(f, "id")
			if first == nil {
				first = f
			} else if fmt.Sprint(f) != fmt.Sprint(first) {
				t.Errorf("%s%s: shape %d answered %v, the canonical shape %v", fn, args, j, f, first)
			}
		}
	}
	h.Send(`{"type":"call","id":"e\u0031","fn":"add","args":[1,2]}`) // an escaped id: the general parser
	if f, _ := h.Answer(); f["id"] != "e1" || fmt.Sprint(f["value"]) != "3" {
		t.Fatalf("escaped id: %v", f)
	}
	h.Wait()
}
