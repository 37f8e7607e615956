// Binary search over the evaluator's games, nothing but the functions: the
// state lives between calls, in package variables (calls come one at a
// time).
package main

var lo, hi, last int64

func new_game(l, h int64) {
	lo, hi = l, h
}

func guess() int64 {
	last = lo + (hi-lo)/2
	return last
}

func feedback(answer string) {
	switch answer {
	case "higher":
		lo = last + 1
	case "lower":
		hi = last - 1
	}
}
