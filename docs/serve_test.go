package docs_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tether-dev/tether/jsonrpc"
	"github.com/tether-dev/tether/service"
)

// discoverDoc asks a service's Mux for its OpenRPC document.
func discoverDoc(t *testing.T) openRPC {
	t.Helper()
	got, err := service.New(nil).Mux().Handle(context.Background(), &jsonrpc.Request{Method: "rpc.discover", ID: json.RawMessage("1")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var doc openRPC
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

type openRPC struct {
	Methods []struct {
		Name   string
		Params []struct {
			Name   string
			Schema map[string]any
		}
		Result struct{ Schema map[string]any }
	}
}

// flatten lists the dotted paths of schema's object properties, prefix
// first, through nested objects (not through arrays or maps).
func flatten(prefix string, schema map[string]any, out []string) []string {
	if prefix != "" {
		out = append(out, prefix)
	}
	props, _ := schema["properties"].(map[string]any)
	for name, sub := range props {
		p := name
		if prefix != "" {
			p = prefix + "." + name
		}
		out = flatten(p, sub.(map[string]any), out)
	}
	return out
}

// fieldRow is a table row whose first cell is a field name in backticks.
var fieldRow = regexp.MustCompile("^\\| `([a-z_.]+)` \\|")

// docFields reads the field tables of a page: for every "### `method`"
// heading, the rows after "**Params**" and after "**Result**". A result
// documented in result.md is marked by the name "result.md".
func docFields(t *testing.T, page string) map[string]map[string][]string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile("^### `([a-z.$/]+)`")
	out := map[string]map[string][]string{}
	method, part := "", ""
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case heading.MatchString(line):
			method, part = heading.FindStringSubmatch(line)[1], ""
			out[method] = map[string][]string{}
		case strings.HasPrefix(line, "#"):
			method = ""
		case method == "":
		case strings.HasPrefix(line, "**Params**"):
			part = "params"
		case strings.HasPrefix(line, "**Result**"):
			part = "result"
			if strings.Contains(line, "(result.md)") {
				out[method][part] = []string{"result.md"}
			}
		case strings.HasPrefix(line, "**"):
			part = ""
		case part != "":
			if m := fieldRow.FindStringSubmatch(line); m != nil {
				out[method][part] = append(out[method][part], m[1])
			}
		}
	}
	return out
}

// resultFields are the fields of docs/result.md's tables.
func resultFields(t *testing.T) []string {
	data, err := os.ReadFile("result.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if m := fieldRow.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

func sameSet(t *testing.T, what string, doc, code []string) {
	t.Helper()
	slices.Sort(doc)
	slices.Sort(code)
	doc, code = slices.Compact(doc), slices.Compact(code)
	for _, f := range code {
		if !slices.Contains(doc, f) {
			t.Errorf("%s: %q is in rpc.discover (the Go types) but not documented", what, f)
		}
	}
	for _, f := range doc {
		if !slices.Contains(code, f) {
			t.Errorf("%s: %q is documented but rpc.discover (the Go types) has no such field", what, f)
		}
	}
}

// docs/serve.md and rpc.discover name the same methods, params and result
// fields; judge.run's result is the object docs/result.md describes.
func TestServeDocMatchesDiscover(t *testing.T) {
	doc := discoverDoc(t)
	pages := docFields(t, "serve.md")
	var codeMethods []string
	for _, m := range doc.Methods {
		codeMethods = append(codeMethods, m.Name)
		page, ok := pages[m.Name]
		if !ok {
			continue // reported below
		}
		var params []string
		for _, p := range m.Params {
			params = flatten(p.Name, p.Schema, params)
		}
		sameSet(t, "serve.md "+m.Name+" params", page["params"], params)
		result := flatten("", m.Result.Schema, nil)
		if slices.Equal(page["result"], []string{"result.md"}) {
			sameSet(t, "result.md (the result of "+m.Name+")", resultFields(t), result)
		} else {
			sameSet(t, "serve.md "+m.Name+" result", page["result"], result)
		}
	}
	var docMethods []string
	for name := range pages {
		if name != "rpc.discover" {
			docMethods = append(docMethods, name)
		}
	}
	sameSet(t, "serve.md methods", docMethods, codeMethods)
}
