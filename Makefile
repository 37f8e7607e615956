# README's test command is `make test`; .ci/run calls it on a clean clone.
GO       ?= go
FUZZTIME ?= 4s
# staticcheck at a pinned version, fetched through the Go module proxy (and
# checked against the checksum database) on first use, then cached.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: test check fmt-check vet staticcheck gotest gotest-fast pytest-fast fuzz scripts build bench

# Each step says how long it took ("ci: STEP took N s", scripts/timed.sh):
# the CI budget is 20 minutes for .ci/run, and these lines say where it goes.
# The scripts step's virtualenvs are made in the background meanwhile
# (scripts/venvs.sh: pip waits on the network, the Go steps on the CPU).
test:
	@set -e; venvs_log=$$(mktemp); \
	bash scripts/venvs.sh >"$$venvs_log" 2>&1 & venvs=$$!; \
	trap 'rm -f "$$venvs_log"' EXIT; \
	for step in fmt-check vet staticcheck gotest fuzz; do \
	  bash scripts/timed.sh "make $$step" $(MAKE) --no-print-directory $$step; \
	done; \
	start=$$(date +%s); wait $$venvs || true; cat "$$venvs_log"; \
	echo "ci: waiting for scripts/venvs.sh took $$(( $$(date +%s) - start )) s"; \
	bash scripts/timed.sh "make scripts" $(MAKE) --no-print-directory scripts

# The fast tier for every edit: no race detector, no fuzzing, no
# virtualenvs or servers; the Python SDK suite runs with the machine's pytest.
check: fmt-check vet staticcheck gotest-fast pytest-fast

build:
	$(GO) build -o bin/tether ./cmd/tether

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi

# The judge needs Linux; everything else (trace view and stats, the LM
# handler, JSON-RPC) also builds on macOS, and vet keeps it so.
vet:
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

# A finding that is intended is marked where it is, with the reason:
# //lint:ignore CHECK reason.
staticcheck:
	$(STATICCHECK) ./...

# go test runs the packages in the order given, -p (the CPU count) at a
# time: the slowest (judge alone takes about 7 minutes) go first, so that
# none of them is left running alone at the end.
SLOW_PACKAGES = ./judge ./cmd/tether ./examples ./lang

# The packages share one build cache (internal/testenv.SharedBuildCache):
# Go's standard library for the Go host, the C and C++ hosts' objects and
# the solutions two packages judge alike are compiled once, not per package.
gotest:
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	echo "TETHER_TEST_BUILD_CACHE=$$cache $(GO) test -race -count=1 -timeout 30m $(SLOW_PACKAGES) ./..."; \
	TETHER_TEST_BUILD_CACHE=$$cache $(GO) test -race -count=1 -timeout 30m $(SLOW_PACKAGES) ./...

gotest-fast:
	$(GO) test -count=1 -timeout 30m ./...

pytest-fast:
	PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider sdk/python/tests --ignore=sdk/python/tests/test_lm.py

# Every Fuzz target of the module runs briefly; a crash it finds is written
# under the package's testdata/fuzz and fails the run, to be kept as a test case.
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

# Area steps that are not plain Go tests: Python SDK, interop peers, examples.
scripts:
	@set -e; for s in scripts/ci-*.sh; do [ -e "$$s" ] || continue; echo "== $$s"; \
	  bash scripts/timed.sh "$$s" bash "$$s"; done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
