// Every declared function of problem.json echoes its argument, in the Go
// types docs/languages.md maps the type language to: nothing but the functions
// (the judge declares the records Point and Shape).
package main

import "math/big"

func echo_int(v int64) int64 { return v }

func echo_bigint(v *big.Int) *big.Int { return v }

func echo_float(v float64) float64 { return v }

func echo_bool(v bool) bool { return v }

func echo_string(v string) string { return v }

func echo_bytes(v []byte) []byte { return v }

func echo_list(v []int64) []int64 { return v }

func echo_list_bool(v []bool) []bool { return v }

func echo_list_float(v []float64) []float64 { return v }

func echo_list_bytes(v [][]byte) [][]byte { return v }

func echo_nested_list(v [][]string) [][]string { return v }

func echo_map(v map[string]int64) map[string]int64 { return v }

func echo_nested_map(v map[string]map[string][]float64) map[string]map[string][]float64 { return v }

func echo_optional_int(v *int64) *int64 { return v }

func echo_optional_string(v *string) *string { return v }

func echo_optional_list(v *[]int64) *[]int64 { return v }

func echo_list_optional(v []*int64) []*int64 { return v }

func echo_point(v Point) Point { return v }

func echo_shape(v Shape) Shape { return v }

func echo_points(v []Point) []Point { return v }

func echo_optional_point(v *Point) *Point { return v }

func echo_point_map(v map[string]Point) map[string]Point { return v }

func echo_any(v any) any { return v }

func echo_mixed(a int64, b string, c float64, d bool, e []byte, f *big.Int) []any {
	return []any{a, b, c, d, e, f}
}
