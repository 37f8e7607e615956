package worker

import (
	"fmt"
	"strconv"
	"strings"
)

// SlotCPUs are the CPUs of one slot's two sides; empty means any.
type SlotCPUs struct {
	Evaluator, Solution []int
}

// ParseCPUList reads a Linux CPU list such as "0-3" or "0,2,4-5".
func ParseCPUList(s string) ([]int, error) {
	var cpus []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("CPU list %q: empty item (write e.g. 0-3 or 0,2)", s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("CPU list %q: %q is not a CPU number or range such as 2 or 0-3", s, part)
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	return cpus, nil
}

// DivideCPUs gives each of n slots its share of cpus: a contiguous block
// each when there are enough, split between the two sides when a block has
// two or more (so evaluator and solution each run on CPUs of their own);
// with fewer CPUs than slots, slots share them in turn. No cpus: any.
func DivideCPUs(cpus []int, n int) []SlotCPUs {
	out := make([]SlotCPUs, n)
	if len(cpus) == 0 {
		return out
	}
	if len(cpus) < n {
		for i := range out {
			c := []int{cpus[i%len(cpus)]}
			out[i] = SlotCPUs{Evaluator: c, Solution: c}
		}
		return out
	}
	per := len(cpus) / n
	for i := range out {
		block := cpus[i*per : (i+1)*per]
		if len(block) == 1 {
			out[i] = SlotCPUs{Evaluator: block, Solution: block}
			continue
		}
		half := len(block) / 2
		out[i] = SlotCPUs{Evaluator: block[:half], Solution: block[half:]}
	}
	return out
}
