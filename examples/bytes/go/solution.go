// Bytes and nested values, nothing but the function: bytes are a []byte,
// a record a struct the judge declares from problem.json (Meta, Inner,
// Transformed, Stats; `tether problem templates` writes them out).
package main

func transform(blob []byte, meta Meta) Transformed {
	n := len(blob)
	reversed, complement := make([]byte, n), make([]byte, n)
	for i, b := range blob {
		reversed[n-1-i] = b
		complement[i] = 255 - b
	}
	stats := Stats{Raw: []byte{0x00, 0xff}, Size: int64(n), Half: float64(n) / 2}
	return Transformed{Reversed: reversed, Complement: complement, Meta: meta, Stats: stats}
}
