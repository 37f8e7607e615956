package frame

import (
	"reflect"
	"testing"

	"github.com/tether-dev/tether/codec"
)

func TestSmallValueAgreesWithCodec(t *testing.T) {
	accepted := map[string]bool{
		`0`: true, `-0`: true, `7`: true, `-123456789012345678`: true, `[]`: true, `[1]`: true,
		`[1,-2,300,0]`:        true,
		`1234567890123456789`: false, `01`: false, `-`: false, `1.5`: false, `1e3`: false, `"s"`: false,
		`[1,]`: false, `[,1]`: false, `[1 ,2]`: false, `[ 1]`: false, `[1,[2]]`: false, `[1]]`: false,
		`[[1]`: false, `[`: false, `]`: false, ``: false, `true`: false, `[1.0]`: false,
	}
	for in, wantFast := range accepted {
		got, ok := smallValue([]byte(in))
		if ok != wantFast {
			t.Errorf("smallValue(%q) fast = %v, want %v", in, ok, wantFast)
		}
		if !ok {
			continue
		}
		want, err := codec.Unmarshal([]byte(in))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("smallValue(%q) = %#v, codec gives %#v, %v", in, got, want, err)
		}
	}
}

func TestInternTypeSharesKnownTypes(t *testing.T) {
	for _, typ := range frameTypes {
		if got := internType([]byte(typ)); got != typ {
			t.Errorf("internType(%q) = %q", typ, got)
		}
	}
	if got := internType([]byte("mystery")); got != "mystery" {
		t.Errorf("internType(mystery) = %q", got)
	}
	if n := testing.AllocsPerRun(100, func() { internType([]byte("result")) }); n != 0 {
		t.Errorf("internType of a known type allocates %v times", n)
	}
}

func TestKeyIndexMatchesEnvelopeKeys(t *testing.T) {
	for k, name := range envelopeKeys {
		if got := keyIndex([]byte(name)); got != k {
			t.Errorf("keyIndex(%q) = %d, want %d", name, got, k)
		}
	}
	for _, other := range []string{"", "typ", "types", "Type", "timeout", "ID"} {
		if got := keyIndex([]byte(other)); got != -1 {
			t.Errorf("keyIndex(%q) = %d, want -1", other, got)
		}
	}
}
