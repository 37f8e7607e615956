# README's test command is `make test`; .ci/run calls it on a clean clone.
GO       ?= go
FUZZTIME ?= 4s

.PHONY: test fmt-check vet gotest fuzz scripts build bench

test: fmt-check vet gotest fuzz scripts

build:
	$(GO) build -o bin/tether ./cmd/tether

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

gotest:
	$(GO) test -race -count=1 ./...

# Every Fuzz target of the module runs briefly; a crash it finds is written
# under the package's testdata/fuzz and fails the run, to be kept as a test case.
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

# Area steps that are not plain Go tests: Python SDK, interop peers, examples.
scripts:
	@set -e; for s in scripts/ci-*.sh; do [ -e "$$s" ] || continue; echo "== $$s"; bash "$$s"; done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
