package lm

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestRequestShape(t *testing.T) {
	var r Request
	if err := json.Unmarshal([]byte(`{"prompt": "hi"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Depth != -1 {
		t.Errorf("missing depth read as %d, want -1 (rlm)", r.Depth)
	}
	if err := json.Unmarshal([]byte(`{"prompt": null, "prompts": ["a"], "depth": 2}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Prompt != nil || !r.Batched() || r.Depth != 2 {
		t.Errorf("decoded %+v", r)
	}
	// rlm's to_dict: prompt, prompts and model omitted when null; depth always written.
	out, _ := json.Marshal(Request{Prompt: json.RawMessage(`"x"`)})
	if string(out) != `{"prompt":"x","depth":0}` {
		t.Errorf("encoded %s", out)
	}
}

func TestResponseWireForms(t *testing.T) {
	cost := 0.25
	c := Completion{RootModel: "m", Prompt: json.RawMessage(`"p"`), Response: "r",
		UsageSummary: singleUsage("m", ModelUsage{TotalCalls: 1, TotalCost: &cost})}
	cases := []struct {
		resp *Response
		want string
	}{
		{ErrorResponse("bad"), `{"error":"bad","chat_completion":null,"chat_completions":null}`},
		{&Response{ChatCompletion: &c}, `{"chat_completion":{"root_model":"m","prompt":"p","response":"r","usage_summary":{"model_usage_summaries":{"m":{"total_calls":1,"total_input_tokens":0,"total_output_tokens":0,"total_cost":0.25}},"total_cost":0.25},"execution_time":0},"chat_completions":null,"error":null}`},
		{&Response{ChatCompletions: []Completion{{RootModel: "m", Prompt: json.RawMessage(`"p"`), Error: "llm() call failed - x"}}},
			`{"chat_completions":[{"root_model":"m","prompt":"p","response":"","usage_summary":{"model_usage_summaries":{}},"execution_time":0,"error":"llm() call failed - x"}],"chat_completion":null,"error":null}`},
	}
	for _, tc := range cases {
		got := string(tc.resp.AppendJSON(nil))
		if got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
		var back Response
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%s does not decode: %v", got, err)
		}
	}
}

func TestParsePrompt(t *testing.T) {
	cases := []struct {
		in      string
		want    string // last message content
		wantErr error
	}{
		{`"hello"`, "hello", nil},
		{`[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`, "b", nil},
		{`{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url"},{"type":"text","text":"y"}]}`, "xy", nil},
		{`""`, "", ErrMissingPrompt},
		{`[]`, "", ErrMissingPrompt},
		{`null`, "", ErrMissingPrompt},
		{`3`, "", ErrInvalidPrompt},
		{`true`, "", ErrInvalidPrompt},
		{`["just text"]`, "", ErrInvalidPrompt},
		{`[{"content":"no role"}]`, "", ErrInvalidPrompt},
		{`[{"role":"user","content":5}]`, "", ErrInvalidPrompt},
	}
	for _, tc := range cases {
		msgs, err := ParsePrompt(json.RawMessage(tc.in))
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.in, err, tc.wantErr)
			continue
		}
		if err == nil && msgs[len(msgs)-1].Content != tc.want {
			t.Errorf("%s: content %q, want %q", tc.in, msgs[len(msgs)-1].Content, tc.want)
		}
	}
	// A string prompt is one user message, whose object is as encoding/json writes it.
	for _, in := range []string{`"hello"`, `"a\"b\u00e9"`, `"<b>&"`, `"café"`, "\"\xff\"", `"tab\t"`} {
		msgs, err := ParsePrompt(json.RawMessage(in))
		if err != nil || len(msgs) != 1 {
			t.Errorf("%s: %v, %d messages", in, err, len(msgs))
			continue
		}
		var text string
		json.Unmarshal([]byte(in), &text)
		want, _ := json.Marshal(struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}{"user", text})
		if m := msgs[0]; m.Role != "user" || m.Content != text || string(m.Raw) != string(want) {
			t.Errorf("%s: %q %q %s, want content %q raw %s", in, m.Role, m.Content, m.Raw, text, want)
		}
	}
	for _, in := range []string{`"unclosed`, `"a"b"`, `"bad \q escape"`} {
		if _, err := ParsePrompt(json.RawMessage(in)); !errors.Is(err, ErrInvalidPrompt) {
			t.Errorf("%s: %v, want ErrInvalidPrompt", in, err)
		}
	}
}

func TestDecodeRequestErrors(t *testing.T) {
	cases := []struct {
		in      string
		want    error
		wantMsg string // "": not checked
	}{
		{`[1]`, ErrNotObject, ""},
		{`"s"`, ErrNotObject, ""},
		{`12`, ErrNotObject, ""},
		{`{"prompt":`, ErrInvalidJSON, ""},
		{``, ErrInvalidJSON, ""},
		{"\xff", ErrInvalidJSON, ""},
		// Valid JSON objects with a field of the wrong type name the field.
		{`{"prompt": "x", "depth": "one"}`, ErrInvalidRequest, "request: depth: want an integer, got string"},
		{`{"prompt": "x", "depth": "1"}`, ErrInvalidRequest, "request: depth: want an integer, got string"},
		{`{"prompt": "x", "depth": 1.5}`, ErrInvalidRequest, "request: depth: want an integer, got number 1.5"},
		{`{"prompt": "x", "depth": true}`, ErrInvalidRequest, "request: depth: want an integer, got bool"},
		{`{"prompts": "x", "depth": 0}`, ErrInvalidRequest, "request: prompts: want an array, got string"},
		{`{"prompts": {"a": 1}}`, ErrInvalidRequest, "request: prompts: want an array, got object"},
		{`{"prompt": "x", "model": 5}`, ErrInvalidRequest, "request: model: want a string, got number"},
	}
	for _, tc := range cases {
		_, err := decodeRequest([]byte(tc.in))
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: %v, want %v", tc.in, err, tc.want)
		}
		if tc.wantMsg != "" && (err == nil || err.Error() != tc.wantMsg) {
			t.Errorf("%q: error %q, want %q", tc.in, err, tc.wantMsg)
		}
		if tc.want != ErrInvalidJSON && errors.Is(err, ErrInvalidJSON) {
			t.Errorf("%q: valid JSON reported as invalid: %v", tc.in, err)
		}
	}
}

// FuzzDecodeRequest: any frame either is refused with a known error or
// yields a request whose prompts the server can echo as valid JSON.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{`{"prompt":"a","depth":0}`, `{"prompts":["a",[{"role":"user","content":"b"}]]}`,
		`[]`, `{"prompt":{"role":"user","content":[{"type":"text","text":"x"}]}}`, `{"model":null}`, `{"prompt":"a","depth":"1"}`, "{\"prompt\":\"caf\\u00e9\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := decodeRequest(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidJSON) && !errors.Is(err, ErrNotObject) && !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		var comps []Completion
		for _, p := range append([]json.RawMessage{req.Prompt}, req.Prompts...) {
			_, perr := ParsePrompt(p)
			if perr != nil && !errors.Is(perr, ErrInvalidPrompt) && !errors.Is(perr, ErrMissingPrompt) {
				t.Fatalf("unclassified prompt error %v", perr)
			}
			comps = append(comps, Completion{Prompt: p, Error: "e"})
		}
		out := (&Response{ChatCompletions: comps}).AppendJSON(nil)
		if !json.Valid(out) {
			t.Fatalf("response is not JSON: %s", out)
		}
	})
}

// plainRequest takes the requests clients send and leaves every other
// shape to encoding/json.
func TestPlainRequest(t *testing.T) {
	for _, in := range []string{
		`{"prompt": "hello", "depth": 0}`,
		`{"prompts": ["a", [{"role": "user", "content": "b"}]], "model": "gpt-x", "depth": 1}`,
		`{"prompt": null, "prompts": null, "model": null, "depth": null}`,
		`{}`,
		`{"prompts": [ ], "depth": -3}`,
	} {
		if _, ok := plainRequest([]byte(in)); !ok {
			t.Errorf("%s: not taken", in)
		}
	}
	for _, in := range []string{
		`{"Prompt": "x"}`, `{"prompt": "a", "prompt": "b"}`, `{"pr\u006fmpt": "x"}`,
		`{"model": "caf\u00e9"}`, `{"model": "café"}`, `{"model": 5}`,
		`{"depth": 1.0}`, `{"depth": 1e2}`, `{"depth": 99999999999999999999}`, `{"depth": "1"}`,
		`{"prompts": "x"}`, `{"other": 1}`, `{"prompt": "x"} {}`, `{"prompt": "x"`, `[]`, ``,
	} {
		if _, ok := plainRequest([]byte(in)); ok {
			t.Errorf("%s: taken", in)
		}
	}
}

// FuzzPlainRequest: what plainRequest takes, encoding/json decodes to the
// same request.
func FuzzPlainRequest(f *testing.F) {
	for _, s := range []string{`{"prompt":"a","depth":0}`, `{"prompts":["a",[{"role":"user","content":"b"}]],"model":"m"}`,
		`{"prompt":null,"depth":null}`, `{"prompts":[],"depth":-1}`, `{"model":"a\"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := plainRequest(data)
		if !ok {
			return
		}
		var want Request
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%q taken, but encoding/json refuses it: %v", data, err)
		}
		if !reflect.DeepEqual(*got, want) {
			t.Fatalf("%q: got %+v, encoding/json %+v", data, *got, want)
		}
	})
}

// The hand-written encoders write what encoding/json writes.
func TestEncodersMatchEncodingJSON(t *testing.T) {
	cost := func(f float64) *float64 { return &f }
	type model struct {
		TotalCalls        int64    `json:"total_calls"`
		TotalInputTokens  int64    `json:"total_input_tokens"`
		TotalOutputTokens int64    `json:"total_output_tokens"`
		TotalCost         *float64 `json:"total_cost,omitempty"`
	}
	type summary struct {
		ModelUsageSummaries map[string]model `json:"model_usage_summaries"`
		TotalCost           *float64         `json:"total_cost,omitempty"`
	}
	for _, s := range []UsageSummary{
		{},
		{ModelUsageSummaries: map[string]ModelUsage{"echo": {TotalCalls: 1, TotalInputTokens: 2, TotalOutputTokens: 3}}},
		{ModelUsageSummaries: map[string]ModelUsage{
			"b<&>": {TotalCalls: 2, TotalCost: cost(1e-7)}, "a": {TotalCost: cost(1e21)},
			"modèle\u2028": {TotalCost: cost(123456789.125)}, "\xff": {TotalInputTokens: -1, TotalCost: cost(-0.5)},
			"z": {TotalCost: cost(0)}, "q\"\\\n": {TotalCost: cost(3e-10)},
		}},
	} {
		mirror := summary{ModelUsageSummaries: map[string]model{}}
		for name, u := range s.ModelUsageSummaries {
			mirror.ModelUsageSummaries[name] = model(u)
		}
		if c, ok := s.TotalCost(); ok {
			mirror.TotalCost = &c
		}
		want, err := json.Marshal(mirror)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.appendJSON(nil); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// FuzzAppendString: appendString writes what encoding/json writes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"hello", "", "a\"b\\c", "<script>&", "caf\u00e9", "\xff\xfe", "\u2028\u2029", "\x00\x1f\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("%q: got %s, want %s", s, got[1:], want)
		}
	})
}
