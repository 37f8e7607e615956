package worker

import (
	"strings"
	"testing"
	"time"
)

// Images named with any prefix map to tether's runtimes: JUDGE_IMAGE_PREFIX,
// a registry path and tag, or any name that ends with a known one after a
// separator. Other names stay unknown.
func TestImagesWithAnyPrefixMap(t *testing.T) {
	j := &Judger{ImagePrefix: "registry.example.com/noj/"}
	for _, image := range []string{
		"noj-evaluator-python",
		"registry.example.com/noj/noj-evaluator-python",
		"registry.example.com/noj/noj-solution-cpp:v3",
		"ghcr.io/neuro-oj/noj-python-solution@sha256:abcd",
		"acme-noj-evaluator-python",
		"acme/judge_noj-solution-python:latest",
	} {
		if rt, err := j.runtime("evaluator", image); err != nil || rt != RuntimePython {
			t.Errorf("%q: %q %v, want python", image, rt, err)
		}
	}
	for _, image := range []string{"cpython", "noj-evaluator-pythonx", "ruby", ""} {
		if rt, err := j.runtime("evaluator", image); err == nil || !strings.Contains(err.Error(), "--runtime") {
			t.Errorf("%q mapped to %q (%v)", image, rt, err)
		}
	}
	// A prefix that is no path: only JUDGE_IMAGE_PREFIX says where it ends.
	j = &Judger{ImagePrefix: "acme", Runtimes: map[string]string{"evaluator": RuntimePython}}
	if rt, err := j.runtime("evaluator", "acmeevaluator"); err != nil || rt != RuntimePython {
		t.Errorf("acmeevaluator with JUDGE_IMAGE_PREFIX=acme: %q %v", rt, err)
	}
}

// A status of an evaluator's own counts as "other" in /metrics: any name
// may come, and each would be a time series of its own.
func TestMetricsCountAnEvaluatorsOwnStatusAsOther(t *testing.T) {
	m := NewMetrics(1)
	m.observe("PartiallyAccepted", time.Second)
	m.observe("Accepted", time.Second)
	body := scrape(t, m)
	if !strings.Contains(body, `tether_worker_runs_total{status="other"} 1`) || !strings.Contains(body, `tether_worker_runs_total{status="Accepted"} 1`) ||
		strings.Contains(body, "PartiallyAccepted") {
		t.Fatalf("/metrics:\n%s", body)
	}
}
