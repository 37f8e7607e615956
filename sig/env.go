package sig

import (
	"encoding/json"
	"fmt"
	"sort"
)

// ParseEnv reads the compact form of Env (the evaluator's TETHER_FUNCTIONS)
// back into a Declaration; "" declares nothing (nil).
func ParseEnv(text string) (*Declaration, error) {
	if text == "" {
		return nil, nil
	}
	type param struct {
		Name string          `json:"name"`
		Type json.RawMessage `json:"type"`
	}
	var doc struct {
		Functions []struct {
			Name   string          `json:"name"`
			Params []param         `json:"params"`
			Result json.RawMessage `json:"result"`
		} `json:"functions"`
		Types map[string]struct {
			Fields []param `json:"fields"`
		} `json:"types"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", EnvName, err)
	}
	d := &Declaration{byName: map[string]*RecordType{}}
	for name := range doc.Types {
		d.byName[name] = &RecordType{Name: name}
	}
	params := func(ps []param) ([]Param, error) {
		var out []Param
		for _, p := range ps {
			t, err := treeType(p.Type, d.byName, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", EnvName, p.Name, err)
			}
			out = append(out, Param{Name: p.Name, Type: t})
		}
		return out, nil
	}
	var err error
	for name, r := range doc.Types {
		if d.byName[name].Fields, err = params(r.Fields); err != nil {
			return nil, err
		}
		d.Records = append(d.Records, d.byName[name])
	}
	sort.Slice(d.Records, func(i, j int) bool { return d.Records[i].Name < d.Records[j].Name })
	for _, f := range doc.Functions {
		fn := &Function{Name: f.Name}
		if fn.Params, err = params(f.Params); err != nil {
			return nil, err
		}
		if !isAbsent(f.Result) {
			if fn.Result, err = treeType(f.Result, d.byName, 0); err != nil {
				return nil, fmt.Errorf("%s: %s result: %v", EnvName, f.Name, err)
			}
		}
		d.Functions = append(d.Functions, fn)
	}
	return d, nil
}

func treeType(raw json.RawMessage, records map[string]*RecordType, depth int) (*Type, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxTypeDepth)
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		if k, ok := scalarNames[name]; ok {
			return &Type{Kind: k}, nil
		}
		return nil, fmt.Errorf("unknown type %q", name)
	}
	var node map[string]json.RawMessage
	if err := json.Unmarshal(raw, &node); err != nil || len(node) != 1 {
		return nil, fmt.Errorf("want a type name or an object of one key, got %s", raw)
	}
	for key, inner := range node {
		if key == "record" {
			if json.Unmarshal(inner, &name) != nil || records[name] == nil {
				return nil, fmt.Errorf("unknown record %s", inner)
			}
			return &Type{Kind: Record, Name: name}, nil
		}
		kinds := map[string]Kind{"list": List, "map": Map, "optional": Optional}
		k, ok := kinds[key]
		if !ok {
			return nil, fmt.Errorf("unknown type %q", key)
		}
		elem, err := treeType(inner, records, depth+1)
		if err != nil {
			return nil, err
		}
		return &Type{Kind: k, Elem: elem}, nil
	}
	return nil, nil // not reached: one key
}
