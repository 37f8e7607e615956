package driver

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// Judged runs problem with solution through tether judge with no sandbox,
// so that what differs from the floor is the relay, and this program
// allowed as the evaluator's command; it returns the details the
// evaluator gave with Accepted, decoded into a D.
func Judged[D any](tether, problem, solution string) (D, error) {
	var zero D
	var res struct {
		Status  string `json:"status"`
		Output  string `json:"output"`
		Details D      `json:"details"`
	}
	self, _ := os.Executable()
	out, err := exec.Command(tether, "judge", "--sandbox", "none", "--json",
		"--allow-command", self, problem, solution).Output()
	if err != nil {
		return zero, fmt.Errorf("%w: %.2000s", err, out)
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return zero, fmt.Errorf("reading the result: %w: %.500s", err, out)
	}
	if res.Status != "Accepted" {
		return zero, fmt.Errorf("verdict %s: %.2000s", res.Status, res.Output)
	}
	return res.Details, nil
}
