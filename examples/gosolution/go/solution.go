// A + B in Go, nothing but the function: the judge generates the rest
// (the Register and Serve of ../solution/main.go).
package main

func add(a, b int64) int64 {
	return a + b
}
