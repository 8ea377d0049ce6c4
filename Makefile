# apicheck — make targets. `make run` and `make test` are the quick start.
GO      ?= go
BIN     := bin/apicheck
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/apicheck/apicheck/internal/cli.Version=$(VERSION)

.PHONY: all build run test vet lint fmt fuzz bench bench-cli action-test action-lint clean

all: build

# Without cgo, as the release builds: a static binary, whose processes
# (the supervisor and the check) start about 1 ms sooner each.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/apicheck

# Builds apicheck, turns the example API history (examples/shoot-api.txtar)
# into a git repository in a temporary directory and checks its last
# change. The example contains violations on purpose, so exit code 1
# (findings) is the expected outcome here.
run: build
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) run ./examples/mkrepo examples/shoot-api.txtar "$$tmp/repo" >/dev/null && \
	echo "\$$ apicheck check --repo <example> --base base --head head" && \
	$(BIN) check --repo "$$tmp/repo" --base base --head head; \
	rc=$$?; if [ $$rc -gt 1 ]; then exit $$rc; fi

# Packages run in parallel (go test -p, one per core); within a package
# at most two tests marked parallel run at once (-parallel 2): the rule
# fixtures, the longest package, then finish while the others still run
# (measured on two cores, test cache empty: 46.5 and 51.0 s against 53.1
# and 59.0 s with -parallel 1, the same CPU; docs/performance.md).
# go vet runs every analyzer go test would run (a subset of vet's), so the
# tests skip theirs (-vet=off): with an empty build cache that saves about
# 8 s (measured: 52 s vs 60 s; docs/performance.md).
test:
	$(GO) vet ./...
	$(GO) test -vet=off -parallel 2 ./...

# Mutates the fuzz targets' seeds for FUZZTIME each (go test's -fuzz
# runs one target at a time). `make test` runs every seed and every saved
# crasher in testdata/fuzz as a regression test; a new crasher lands
# there. FUZZTIME=1000x bounds by executions instead of time.
FUZZTIME ?= 30s
FUZZ     := internal/check:FuzzAPIEdits internal/check:FuzzAPIFile \
	internal/protobuf:FuzzParseTag internal/protobuf:FuzzParseTombstones \
	internal/golex:FuzzLexer internal/lifecycle:FuzzLexStruct
fuzz:
	@set -e; for t in $(FUZZ); do \
	  echo "== $${t##*:} ($(FUZZTIME))"; \
	  $(GO) test -run '^$$' -fuzz "^$${t##*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./$${t%%:*}; \
	done

# staticcheck, pinned; fetched through the module proxy on first use.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: action-lint
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

# actionlint, pinned; fetched through the module proxy on first use. It
# lints workflow files only, not action metadata (rhysd/actionlint#46), so
# scripts/actionlintprep lays out what it can lint: every workflow in
# README.md and docs/*.md (with `uses: apicheck/apicheck@REF` as `uses: ./`,
# which makes actionlint check the inputs against action.yml's metadata)
# and action.yml's composite steps as a workflow job, all on their own line
# numbers (columns in action.yml's steps are two more); the output names
# the original files. The repository's own workflows (.github/workflows)
# join them as they are. actionrun -lint checks what
# actionlint cannot see in action.yml. actionlint runs shellcheck on `run:`
# scripts only when shellcheck is on PATH.
ACTIONLINT ?= github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
ACTIONLINT_DOCS := README.md $(wildcard docs/*.md)
ACTIONLINT_WORKFLOWS := $(wildcard .github/workflows/*.yml .github/workflows/*.yaml)
action-lint:
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) run ./scripts/actionlintprep -out "$$tmp/p" -action action.yml $(ACTIONLINT_DOCS) >"$$tmp/files" || exit 1; \
	for f in $(ACTIONLINT_WORKFLOWS); do \
	  if [ -e "$$tmp/p/$$f" ]; then echo "action-lint: $$f: actionlintprep writes a file of that name; rename the workflow" >&2; exit 1; fi; \
	  cp "$$f" "$$tmp/p/$$f" && echo "$$f" >>"$$tmp/files" || exit 1; \
	done; \
	echo "actionlint: action.yml steps, the workflows of $(ACTIONLINT_DOCS) and $(or $(ACTIONLINT_WORKFLOWS),no workflow of .github/workflows)"; \
	rc=0; (cd "$$tmp/p" && $(GO) run $(ACTIONLINT) $$(cat "$$tmp/files")) >"$$tmp/out" 2>&1 || rc=$$?; \
	sed -E -e 's#^\.github/workflows/action\.yml:#action.yml:#' -e 's#^\.github/workflows/([^:]+)-L[0-9]+\.yml:#\1:#' \
	  -e ':a' -e 's#^([^: ]*)__#\1/#' -e 'ta' "$$tmp/out"; \
	[ $$rc -eq 0 ] || exit $$rc; \
	$(GO) run ./scripts/actionrun -lint -action action.yml

fmt:
	gofmt -w $$(git ls-files '*.go')

bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

bench-cli:
	./scripts/bench.sh

# Runs action.yml's steps locally, as the runner would (no network).
action-test:
	./scripts/action-test.sh

# Cross-builds a release into DIST: apicheck for linux/amd64, linux/arm64,
# darwin/amd64, darwin/arm64 and windows/amd64 (CGO_ENABLED=0 go build
# -trimpath -buildvcs=false -ldflags "-s -w -X ...cli.Version=$(VERSION)"),
# each packed with README.md and LICENSE into
# apicheck_$(VERSION)_<os>_<arch>.tar.gz (.zip for windows), and
# apicheck_$(VERSION)_checksums.txt, which `sha256sum -c` verifies. VERSION
# must be a semantic version, vX.Y.Z or vX.Y.Z-PRE. The same sources and Go
# toolchain give the same bytes (scripts/release; SOURCE_DATE_EPOCH, when
# set, is the archive entries' time). The release workflow runs it for a
# v* tag (.github/workflows/release.yml).
DIST ?= dist
.PHONY: release
release:
	$(GO) run ./scripts/release -go "$(GO)" -version "$(VERSION)" -dist "$(DIST)"

clean:
	rm -rf bin
