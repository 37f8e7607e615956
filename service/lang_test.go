package service

import (
	"context"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testenv"
)

// judge.run's solution.language: inline code in C++ is compiled as C++
// (here it does not compile: CompileError with the compiler's line), an
// unknown language is a CompileError naming the known ones.
func TestJudgeRunLanguage(t *testing.T) {
	testenv.Toolchain(t, "g++")
	client, _ := connect(t, newService())
	problem := map[string]any{"files": map[string]string{
		"problem.json": `{"runtime_config":{"evaluator":{"command":"sh evaluate.sh"}}}`,
		"evaluate.sh":  "echo '---RESULT---'\necho '{\"status\":\"Accepted\",\"score\":10000}'\n",
	}}
	for _, c := range []struct{ language, code, saying string }{
		{"cpp", "int main() { return x; }\n", "main.cpp:1:"},
		{"c++", "int main() { return x; }\n", "main.cpp:1:"},
		{"cobol", "x", "known: c, cpp"},
	} {
		var res struct {
			Status   string            `json:"status"`
			Output   string            `json:"output"`
			Details  map[string]string `json:"details"`
			Language string            `json:"language"`
		}
		params := map[string]any{"problem": problem, "solution": map[string]any{"language": c.language, "code": c.code}}
		if err := client.Call(context.Background(), "judge.run", params, &res); err != nil {
			t.Fatal(err)
		}
		if res.Status != "CompileError" || !strings.Contains(res.Output+res.Details["message"], c.saying) {
			t.Errorf("language %q: %+v, want CompileError saying %q", c.language, res, c.saying)
		}
	}
}
