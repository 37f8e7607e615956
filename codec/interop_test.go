package codec

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testenv"
)

// The interop tests check the canonical form against Python's own json
// module, the encoder the Python SDK uses. TETHER_CODEC_PYTHON names the
// interpreter (default: python3 on PATH); without one they skip, unless
// TETHER_REQUIRE_INTEROP=1, where a missing interpreter fails them.
func pythonForInterop(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TETHER_CODEC_PYTHON"); p != "" {
		return p
	}
	return testenv.Python3(t)
}

// runPython feeds input to a Python script and returns its stdout.
func runPython(t *testing.T, script string, input []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pythonForInterop(t), "-c", script)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.Bytes())
	}
	return out
}

const pythonFloatRepr = `
import json, struct, sys
for line in sys.stdin.buffer.read().split():
    f = struct.unpack(">d", bytes.fromhex(line.decode()))[0]
    sys.stdout.write(json.dumps(f, allow_nan=False) + "\n")
`

func TestInteropPythonFloatRepr(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	floats := []float64{0, math.Copysign(0, -1), 1, 0.1, 1e16, 1e15, 1e-4, 1e-5,
		math.Nextafter(1e16, 0), math.Nextafter(1e-4, 0), math.Nextafter(1e-4, 1),
		math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308}
	for e := -325; e <= 308; e++ {
		floats = append(floats, math.Pow(10, float64(e)))
	}
	for range 20000 {
		floats = append(floats, randomFloat(r))
	}
	var in bytes.Buffer
	var bits [8]byte
	for _, f := range floats {
		binary.BigEndian.PutUint64(bits[:], math.Float64bits(f))
		in.WriteString(hex.EncodeToString(bits[:]) + "\n")
	}
	lines := strings.Split(strings.TrimSuffix(string(runPython(t, pythonFloatRepr, in.Bytes())), "\n"), "\n")
	if len(lines) != len(floats) {
		t.Fatalf("python returned %d lines for %d floats", len(lines), len(floats))
	}
	for i, f := range floats {
		if got := string(appendFloat(nil, f)); got != lines[i] {
			t.Errorf("float %b: Go %s, Python %s", f, got, lines[i])
		}
	}
}

const pythonCanonical = `
import json, sys
for line in sys.stdin.buffer.read().split(b"\n")[:-1]:
    v = json.loads(line.decode("utf-8"))
    out = json.dumps(v, separators=(",", ":"), ensure_ascii=False, sort_keys=True, allow_nan=False)
    sys.stdout.buffer.write(out.encode("utf-8") + b"\n")
`

// TestInteropPythonCanonical: Python reads every canonical wire Go writes
// (random values and the vector file) and writes back identical bytes.
func TestInteropPythonCanonical(t *testing.T) {
	var wires []string
	for _, c := range loadVectors(t) {
		if c.Value != nil && c.Wire != nil {
			wires = append(wires, *c.Wire)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		data, err := Marshal(randomValue(r, 4))
		if err != nil {
			t.Fatal(err)
		}
		wires = append(wires, string(data))
	}
	out := runPython(t, pythonCanonical, []byte(strings.Join(wires, "\n")+"\n"))
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(wires) {
		t.Fatalf("python returned %d lines for %d values", len(lines), len(wires))
	}
	for i, w := range wires {
		if lines[i] != w {
			t.Errorf("Go wrote   %q\nPython wrote %q", w, lines[i])
		}
	}
}
