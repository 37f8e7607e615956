package jsonrpc

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

type discoverColour int

func (discoverColour) JSONSchema() map[string]any {
	return map[string]any{"type": "string", "enum": []any{"red", "green"}}
}

type discoverParams struct {
	Name   string          `json:"name"`
	Tags   []string        `json:"tags,omitempty"`
	Limit  *int            `json:"limit"`
	Depth  int             `json:"depth" openrpc:"optional"`
	Extra  json.RawMessage `json:"extra,omitempty"`
	hidden int             //lint:ignore U1000 unexported: the schema must leave it out
	discoverEmbedded
}

type discoverEmbedded struct {
	Colour discoverColour `json:"colour"`
}

type discoverResult struct {
	Count int                `json:"count"`
	Bytes []byte             `json:"bytes"`
	Per   map[string]float64 `json:"per,omitempty"`
}

// rpc.discover answers an OpenRPC document whose params and results follow
// the Go types as encoding/json reads and writes them.
func TestDiscoverDescribesRegisteredMethods(t *testing.T) {
	mux := NewMux()
	Register(mux, "thing.make", func(context.Context, discoverParams) (*discoverResult, error) { return nil, nil })
	mux.AddFunc("thing.ping", func(context.Context, *Request) (any, error) { return "pong", nil })
	mux.Describe("thing.ping", MethodDoc{Summary: "answers pong", Result: reflect.TypeFor[string]()})
	mux.Describe("thing.make", MethodDoc{Summary: "makes a thing"})
	AddDiscover(mux, DiscoverInfo{Title: "test", Version: "1"})

	got, err := mux.Handle(context.Background(), &Request{Method: "rpc.discover", ID: json.RawMessage("1")})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenRPC string `json:"openrpc"`
		Info    DiscoverInfo
		Methods []struct {
			Name    string
			Summary string
			Params  []struct {
				Name     string
				Required bool
				Schema   map[string]any
			}
			Result struct{ Schema map[string]any }
		}
	}
	if err := json.Unmarshal(got.(json.RawMessage), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenRPC != "1.3.2" || doc.Info.Title != "test" || len(doc.Methods) != 2 {
		t.Fatalf("document %+v: want openrpc 1.3.2, the info and two methods (rpc.discover not listed)", doc)
	}
	mk, ping := doc.Methods[0], doc.Methods[1]
	if mk.Name != "thing.make" || mk.Summary != "makes a thing" || ping.Name != "thing.ping" || ping.Summary != "answers pong" {
		t.Fatalf("methods %+v, want thing.make then thing.ping with their summaries", doc.Methods)
	}
	wantParams := map[string]struct {
		required bool
		schema   string
	}{
		"name":   {true, `{"type":"string"}`},
		"tags":   {false, `{"items":{"type":"string"},"type":["array","null"]}`},
		"limit":  {false, `{"type":["integer","null"]}`},
		"depth":  {false, `{"type":"integer"}`},
		"extra":  {false, `{}`},
		"colour": {true, `{"enum":["red","green"],"type":"string"}`},
	}
	if len(mk.Params) != len(wantParams) {
		t.Errorf("thing.make params %+v, want %d", mk.Params, len(wantParams))
	}
	for _, p := range mk.Params {
		want, ok := wantParams[p.Name]
		schema, _ := json.Marshal(p.Schema)
		if !ok || p.Required != want.required || string(schema) != want.schema {
			t.Errorf("param %s: required %v schema %s, want %+v", p.Name, p.Required, schema, want)
		}
	}
	result, _ := json.Marshal(mk.Result.Schema)
	const wantResult = `{"properties":{"bytes":{"contentEncoding":"base64","type":["string","null"]},"count":{"type":"integer"},` +
		`"per":{"additionalProperties":{"type":"number"},"type":["object","null"]}},"required":["count","bytes"],"type":"object"}`
	if string(result) != wantResult {
		t.Errorf("thing.make result schema\n%s, want\n%s", result, wantResult)
	}
	if len(ping.Params) != 0 || ping.Result.Schema["type"] != "string" {
		t.Errorf("thing.ping %+v, want no params and a string result", ping)
	}
}
