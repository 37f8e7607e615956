package judge

import (
	"fmt"
	"os"

	pysdk "github.com/tether-dev/tether/sdk/python"
)

// writePythonSDK writes the importable Python SDK packages into a
// directory (a variable so a test can make it fail).
var writePythonSDK = pysdk.WriteTo

// writePythonSDKDir writes the embedded SDK to a fresh temp dir for one
// run; the caller removes it when the run ends.
func writePythonSDKDir() (string, error) {
	dir, err := os.MkdirTemp("", "tether-pysdk-*")
	if err != nil {
		return "", fmt.Errorf("python sdk dir: %w", err)
	}
	if err := writePythonSDK(dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("python sdk: %w", err)
	}
	return dir, nil
}
