package judge

// JSONSchema describes a status as it is written: one of tether's verdict
// names, or an evaluator's own plain identifier. rpc.discover uses it
// (package jsonrpc's Schemaer).
func (Status) JSONSchema() map[string]any {
	names := make([]any, 0, len(Statuses))
	for _, s := range Statuses {
		names = append(names, s.String())
	}
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "enum": names},
		map[string]any{"type": "string", "pattern": StatusPattern,
			"description": "a status of the evaluator's own, passed through; not Accepted"},
	}}
}
