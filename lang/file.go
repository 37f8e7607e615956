package lang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tether-dev/tether/schemas"
)

// LoadFile reads an operator's languages file (docs/languages.md, schema
// schemas/languages.schema.json) and applies it over base: an entry of a
// known id changes only the fields it gives, a new id adds a language,
// "disabled": true refuses one.
func LoadFile(path string, base *Table) (*Table, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("languages file: %w", err)
	}
	t, err := ParseFile(raw, base)
	if err != nil {
		return nil, fmt.Errorf("languages file %s: %w", path, err)
	}
	return t, nil
}

// ParseFile is LoadFile for the file's text.
func ParseFile(raw []byte, base *Table) (*Table, error) {
	issues, err := schemas.Check(schemas.Languages, raw)
	if err != nil {
		return nil, err
	}
	if len(issues) > 0 {
		var lines []string
		for _, is := range issues {
			lines = append(lines, is.String())
		}
		return nil, fmt.Errorf("%s", strings.Join(lines, "; "))
	}
	var file struct {
		Languages map[string]json.RawMessage `json:"languages"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, err
	}
	byID := map[string]*Language{}
	var order []string
	for _, l := range base.langs {
		c := *l
		// json decodes an array into the slice it finds, over its backing
		// array: the entry's own copies keep base's from being written.
		for _, f := range []*[]string{&c.Aliases, &c.Extensions, &c.Compile, &c.Run, &c.Version, &c.Paths} {
			*f = slices.Clone(*f)
		}
		byID[l.ID] = &c
		order = append(order, l.ID)
	}
	for id, entry := range file.Languages {
		id = strings.ToLower(id)
		l, ok := byID[id]
		if !ok {
			l = &Language{ID: id}
			byID[id] = l
			order = append(order, id)
		}
		builtinCompile := l.Compile
		dec := json.NewDecoder(bytes.NewReader(entry))
		dec.DisallowUnknownFields()
		if err := dec.Decode(l); err != nil {
			return nil, fmt.Errorf("languages.%s: %w", id, err)
		}
		if !slices.Equal(l.Compile, builtinCompile) {
			l.HostBuild = nil // its commands are the replaced compile's two halves
		}
		if !ok && l.Source == "" {
			return nil, fmt.Errorf("languages.%s: a new language needs source (the file name, like main.kt)", id)
		}
	}
	langs := make([]*Language, 0, len(order))
	for _, id := range order {
		langs = append(langs, byID[id])
	}
	t, err := NewTable(langs)
	if err != nil {
		return nil, fmt.Errorf("languages: %w", err)
	}
	return t, nil
}
