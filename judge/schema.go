package judge

// JSONSchema describes a status as it is written: one of the verdict names.
// rpc.discover uses it (package jsonrpc's Schemaer).
func (Status) JSONSchema() map[string]any {
	names := make([]any, 0, len(statusNames))
	for s := Accepted; s <= lastStatus; s++ {
		names = append(names, s.String())
	}
	return map[string]any{"type": "string", "enum": names}
}
