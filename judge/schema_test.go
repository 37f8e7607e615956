package judge

import (
	"testing"

	"github.com/tether-dev/tether/schemas"
)

// checkResultSchema fails t when r, as JSON, is outside
// schemas/result.schema.json: every result the judge tests produce goes
// through it (the harness and the Python problem tests call it).
func checkResultSchema(t *testing.T, r *Result) {
	t.Helper()
	issues, err := schemas.CheckValue(schemas.Result, r)
	if err != nil {
		t.Fatalf("result schema: %v", err)
	}
	for _, i := range issues {
		t.Errorf("the result is outside schemas/result.schema.json: %s", i)
	}
}
