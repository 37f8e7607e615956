package hosttest

import (
	"fmt"
	"strings"
	"testing"
)

func testCall(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("c1", "add", 1, 2)
	if f := h.Expect("c1", "result", ""); fmt.Sprint(f["value"]) != "3" {
		t.Fatalf("add(1, 2) = %v", f["value"])
	}
	// Several calls in flight are answered, each by its id.
	want := map[string]string{}
	for i := 0; i < 100; i++ {
		h.Call(fmt.Sprintf("m%d", i), "add", i, 1000)
		want[fmt.Sprintf("m%d", i)] = fmt.Sprint(i + 1000)
	}
	for id, f := range h.ExpectAll(len(want)) {
		if f["type"] != "result" || fmt.Sprint(f["value"]) != want[id] {
			t.Fatalf("answer %v, want result %s", f, want[id])
		}
	}
	if l.Typed {
		h.Call("c2", "add", 1)
		h.Expect("c2", "error", "Rejected")
		h.Call("c3", "add", 1, "x")
		h.Expect("c3", "error", "Rejected")
	}
}

func testNotFound(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("n1", "nope")
	f := h.Expect("n1", "error", "NotFound")
	if f["message"] != "function 'nope' not registered" {
		t.Fatalf("message %q, want the Python host's text", f["message"])
	}
}

func testException(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("e1", "fail")
	f := h.Expect("e1", "error", "Exception")
	msg, _ := f["message"].(string)
	if !strings.HasPrefix(msg, l.ExceptionPrefix) {
		t.Fatalf("message %q, want it to start with the exception's class %q", msg, l.ExceptionPrefix)
	}
	// The host keeps serving.
	h.Call("e2", "add", 2, 3)
	h.Expect("e2", "result", "")
}

func testPrints(t *testing.T, l Lang) {
	h := Start(t, l)
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("p%d", i)
		word := fmt.Sprintf("word%d", i)
		h.Call(id, "shout", word)
		f, logs := h.Answer()
		if f["id"] != id || f["type"] != "result" || fmt.Sprint(f["value"]) != fmt.Sprint(len(word)) {
			t.Fatalf("shout answer %v", f)
		}
		var out, errs string
		for _, lf := range logs {
			switch lf["stream"] {
			case "stdout":
				out += lf["data"].(string)
			case "stderr":
				errs += lf["data"].(string)
			default:
				t.Fatalf("log frame with stream %v", lf["stream"])
			}
		}
		if !strings.Contains(out, "out:"+word) || !strings.Contains(errs, "err:"+word) {
			t.Fatalf("logs before the answer: stdout %q stderr %q, want out:%s and err:%s", out, errs, word, word)
		}
	}
	h.Call("p9", "add", 1, 1)
	h.Expect("p9", "result", "")
}

func testCapability(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("k1", "twice", 20)
	f := h.Next()
	if f["type"] != "capability" || f["name"] != "double" {
		t.Fatalf("got %v, want a capability frame for double", f)
	}
	id, _ := f["id"].(string)
	if id == "" || len(id) > 1024 {
		t.Fatalf("capability id %q", id)
	}
	if args, _ := f["args"].([]any); len(args) != 1 || fmt.Sprint(args[0]) != "20" {
		t.Fatalf("capability args %v", f["args"])
	}
	// A call arriving while the capability is pending waits its turn.
	h.Call("k2", "add", 1, 1)
	h.Send(fmt.Sprintf(`{"type":"result","id":%q,"value":40}`, id))
	got := h.ExpectAll(2) // a host running calls concurrently may answer k2 first
	if f := got["k1"]; f["type"] != "result" || fmt.Sprint(f["value"]) != "41" {
		t.Fatalf("twice(20): %v, want 41", f)
	}
	if f := got["k2"]; f["type"] != "result" {
		t.Fatalf("add(1, 1) during a capability: %v", f)
	}

	h.Call("k3", "capcode", "missing")
	f = h.Next()
	if f["type"] != "capability" || f["name"] != "missing" {
		t.Fatalf("got %v, want a capability frame for missing", f)
	}
	h.Send(fmt.Sprintf(`{"type":"error","id":%q,"code":"NotFound","message":"capability 'missing' not registered"}`, f["id"]))
	if f := h.Expect("k3", "result", ""); f["value"] != "NotFound" {
		t.Fatalf("capability error code seen by the solution: %v, want NotFound", f["value"])
	}
	// An answer the codec refuses fails the capability as Rejected.
	h.Call("k4", "capcode", "nan")
	f = h.Next()
	h.Send(fmt.Sprintf(`{"type":"result","id":%q,"value":NaN}`, f["id"]))
	if f := h.Expect("k4", "result", ""); f["value"] != "Rejected" {
		t.Fatalf("capability answered NaN: the solution saw %v, want Rejected", f["value"])
	}
	// stdin EOF while waiting: a connection error, never a hang.
	h.Call("k5", "capcode", "never")
	if f := h.Next(); f["type"] != "capability" {
		t.Fatalf("got %v, want a capability frame", f)
	}
	h.Wait()
}

func testHostile(t *testing.T, l Lang) {
	h := Start(t, l)
	huge := strings.Repeat("x", 5<<20)
	h.Send(
		"plain text",
		"",
		"{}",
		"[1,2,3]",
		`{"type":"call"}`,
		`{"type":"call","id":"","fn":"add","args":[1,2]}`,
		`{"type":"call","id":7,"fn":"add","args":[1,2]}`,
		`{"type":"result","id":"nobody","value":1}`,
		`{"type":"nonsense","id":"z"}`,
		`{"type":"call","id":"h1","fn":"add","args":[1,2]`, // not JSON: ignored
		`{"type":"call","id":"big","fn":"add","args":["`+huge+`"]}`,
		huge,
		`{"type":"call","id":"h2","fn":7,"args":[]}`,
		`{"type":"call","id":"h3","fn":"add","args":{"a":1}}`,
		`{"type":"call","id":"h4","fn":"add","args":[1,NaN]}`,
		`{"type":"call","id":"h5","fn":"add","args":[1,2],"id":"h5b"}`,
		`{"type":"call","id":"h6","fn":"echo","args":[{"a":1,"a":2}]}`,
		"\xff\xfe{garbage",
		`{"type":"call","id":"h7","fn":"add","args":[1,2]}`,
	)
	got := h.ExpectAll(6) // any order: a host may run calls concurrently
	want := map[string]string{"h2": "NotFound", "h3": "Rejected", "h4": "Rejected", "h5b": "Rejected", "h6": "Rejected", "h7": ""}
	for id, code := range want {
		f, ok := got[id]
		if !ok || (code == "" && f["type"] != "result") || (code != "" && f["code"] != code) {
			t.Fatalf("answer to %s: %v, want %s", id, f, code)
		}
	}
	// h5b: a repeated member is refused by the codec and answered by the last id (Python host).
	if !strings.Contains(fmt.Sprint(got["h4"]["message"]), "NaN") {
		t.Fatalf("NaN argument: %v", got["h4"]["message"])
	}
	if !strings.Contains(fmt.Sprint(got["h6"]["message"]), "duplicate key") {
		t.Fatalf("duplicate key: %v", got["h6"]["message"])
	}
	// An answer over 1 MiB is refused with the protocol's text.
	big := strings.Repeat("y", 1<<20)
	h.Call("h8", "echo", big)
	if f := h.Expect("h8", "error", "Rejected"); !strings.HasPrefix(fmt.Sprint(f["message"]), "frame size ") {
		t.Fatalf("oversize answer: %v", f["message"])
	}
	h.Call("h9", "add", 4, 5)
	h.Expect("h9", "result", "")
}

func testEOF(t *testing.T, l Lang) {
	h := Start(t, l)
	h.Call("q1", "add", 1, 2)
	h.in.Close()
	h.Expect("q1", "result", "")
	h.Wait()
}
