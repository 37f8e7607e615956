// A Go solution of nothing but the functions has no main (the judge adds
// it), so it cannot build as part of the tether module: this module of
// its own keeps it out of tether's go build, go vet and staticcheck ./...
module solution

go 1.21
