package judge

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/schemas"
)

// Every field LoadProblem reads is described by problem.schema.json at the
// same place, so `tether problem check` never calls a field the judge uses
// unknown (runtime_config.solution.languages once sat under evaluator).
func TestProblemSchemaKnowsEveryFieldTheLoaderReads(t *testing.T) {
	src, err := schemas.Source(schemas.Problem)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(src, &schema); err != nil {
		t.Fatal(err)
	}
	var walk func(typ reflect.Type, node map[string]any, path string)
	walk = func(typ reflect.Type, node map[string]any, path string) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous {
				walk(ft, node, path)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			props, _ := node["properties"].(map[string]any)
			child, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s%s: read by the judge, not in problem.schema.json", path, name)
				continue
			}
			if ft.Kind() == reflect.Struct && ft.NumField() > 0 {
				if _, described := child["properties"]; described {
					walk(ft, child, path+name+".")
				}
			}
		}
	}
	walk(reflect.TypeOf(problemFile{}), schema, "")
}
