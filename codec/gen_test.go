package codec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
)

// randomRunes covers every class the canonical form treats differently.
var randomRunes = []rune{
	'a', 'Z', '0', ' ', '"', '\\', '/', '<', '>', '&', '\'', 0x7f,
	0, 1, '\b', '\f', '\n', '\r', '\t', 0x1f,
	'é', 'ß', '中', '｡', 0x2028, 0x2029, 0xfeff, 0xffff, '😀', 0x10ffff,
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(8) {
		b.WriteRune(randomRunes[r.IntN(len(randomRunes))])
	}
	return b.String()
}

// randomFloat mixes uniformly random bit patterns (mostly huge or tiny
// exponents) with values near the repr notation switch points.
func randomFloat(r *rand.Rand) float64 {
	for {
		var f float64
		switch r.IntN(4) {
		case 0:
			f = math.Float64frombits(r.Uint64())
		case 1:
			f = math.Pow(10, float64(r.IntN(40)-20)) * (r.Float64() + 0.5)
		case 2:
			f = float64(r.Int64N(1<<54)) / math.Pow(2, float64(r.IntN(60)))
		default:
			f = math.Nextafter(math.Pow(10, float64(r.IntN(40)-20)), math.Inf(r.IntN(2)*2-1))
		}
		if r.IntN(2) == 0 {
			f = -f
		}
		if isFinite(f) {
			return f
		}
	}
}

// randomValue builds a random decoded-form value (the types Unmarshal
// returns), nested at most depth more levels.
func randomValue(r *rand.Rand, depth int) any {
	kind := r.IntN(11)
	if depth <= 0 && kind >= 9 {
		kind = r.IntN(9)
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return int64(r.Uint64())
	case 3:
		n := new(big.Int).Lsh(big.NewInt(1), uint(64+r.IntN(200)))
		n.Add(n, big.NewInt(r.Int64()))
		if r.IntN(2) == 0 {
			n.Neg(n)
		}
		return n
	case 4, 5:
		return randomFloat(r)
	case 6, 7:
		return randomString(r)
	case 8:
		b := make([]byte, r.IntN(10))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	case 9:
		list := []any{}
		for range r.IntN(5) {
			list = append(list, randomValue(r, depth-1))
		}
		return list
	default:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randomString(r)] = randomValue(r, depth-1)
		}
		if len(m) == 1 {
			if _, ok := m[bytesKey]; ok {
				m["x"] = nil // a lone __bytes__ key is refused by design
			}
		}
		return m
	}
}
