module github.com/tether-dev/tether/bench/jsonrpc

go 1.26.8

replace github.com/tether-dev/tether => ../..

require (
	github.com/creachadair/jrpc2 v1.3.6
	github.com/sourcegraph/jsonrpc2 v0.2.3
	github.com/tether-dev/tether v0.0.0-00010101000000-000000000000
)

require (
	github.com/creachadair/mds v0.31.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
)
