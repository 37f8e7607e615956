package judge

import (
	"fmt"
	"os"

	"github.com/tether-dev/tether/sandbox"
	pysdk "github.com/tether-dev/tether/sdk/python"
)

// writePythonSDK writes the importable Python SDK packages into a
// directory (a variable so a test can make it fail).
var writePythonSDK = pysdk.WriteTo

// writePythonSDKDir writes the embedded SDK to a fresh temp dir for one
// run; the caller removes it when the run ends. The dir is named after the
// judge process, so if the judge is killed (kill -9) before that, the next
// linux sandbox runner made removes it with the sandboxes it left.
func writePythonSDKDir() (string, error) {
	dir, err := sandbox.MkdirOwnedTemp("pysdk")
	if err != nil {
		return "", fmt.Errorf("python sdk dir: %w", err)
	}
	if err := writePythonSDK(dir); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("python sdk: %w", err)
	}
	return dir, nil
}
