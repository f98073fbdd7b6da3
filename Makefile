# svc: the two commands that matter are `make run` and `make test`.
GO      ?= go
DATA    ?= ./data
ADDR    ?= :8080
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/svc-geodata/svc/cmd.Version=$(VERSION)
PKGS    := ./...

.PHONY: build run demo test vet race bench bench-peers bench-scale cluster-test soak load search-tail fuzz interop-tools clean dist

## build: the static binary ./svc (CGO_ENABLED=0)
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -trimpath -ldflags "$(LDFLAGS)" -o svc .

## dist: static binaries for field laptops and servers, with SHA-256 sums, into dist/
DIST_TARGETS := linux/amd64 linux/arm64 darwin/arm64 windows/amd64
dist:
	@rm -rf dist && mkdir -p dist
	@for t in $(DIST_TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "dist/svc-$$os-$$arch$$ext"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -buildvcs=auto -trimpath -ldflags "$(LDFLAGS)" -o dist/svc-$$os-$$arch$$ext . || exit 1; \
	done
	@cd dist && sha256sum svc-* > SHA256SUMS && cat SHA256SUMS

## run: build, generate the demo pack into $(DATA) when it is empty, serve on $(ADDR)
run: build
	@if [ -z "$$(ls -A $(DATA) 2>/dev/null | grep -v '^README.md$$')" ]; then ./svc demo --data $(DATA); fi
	./svc serve --data $(DATA) --addr $(ADDR)

## demo: regenerate the demo pack into $(DATA)
demo: build
	./svc demo --data $(DATA)

## test: vet and every test, interop tests included (they skip locally when a tool is missing);
## internal/scalerun's smoke test runs make bench-scale at SCALE=0.002 with the ./svc just built.
## The timeout is per package: cmd takes ~7.5 min on an idle 2-core machine and 17 min when the
## machine is shared, so 20 min was too close.
test: build vet
	SVC_BIN=$(CURDIR)/svc $(GO) test -count=1 -timeout 35m $(PKGS)

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet $(PKGS)

## race: every test under the race detector (slow: about 5 minutes on 2 cores)
race:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

## bench: Go benchmarks (compare runs with benchstat)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 $(PKGS)

## bench-peers: svc next to pg_featureserv+PostGIS, gdallocationinfo and a hello-world server (about 4 minutes; bench/results/)
bench-peers:
	scripts/bench-peers/run.sh

## bench-scale: a synthetic state of SCALE x NRW (34,000 km²) from the real samples through the whole
## pipeline, measured per stage, into bench/results/scale-$(SCALE).md/.json (docs/performance.md);
## JUDGE=auto|on|off: the 3D Tiles validator and CesiumJS in headless Chromium on its output
SCALE   ?= 0.01
SAMPLES ?= ../shared/samples
JUDGE   ?= auto
bench-scale: build
	$(GO) run ./bench/scale -scale $(SCALE) -svc ./svc -samples $(SAMPLES) -out bench/results -judge $(JUDGE)

## cluster-test: three replicas on a shared PostgreSQL behind nginx, all on loopback (also part of make test)
cluster-test:
	$(GO) test -count=1 -run '^TestCluster$$' -v ./cmd

## soak: RSS after ~10k and after ~1M mixed requests on the demo pack (memory must stay flat)
soak: build
	scripts/soak/run.sh

## load: start the server on the demo pack and measure each route with wrk
load: build
	scripts/load.sh

## search-tail: the bbox search's p50/p99, GC count and STW under wrk, per GC policy (BASELINE=old-binary to compare)
search-tail: build
	scripts/search-tail.sh

## fuzz: run every fuzz target briefly (FUZZTIME per target)
FUZZTIME ?= 15s
fuzz:
	scripts/fuzz.sh $(FUZZTIME)

## interop-tools: the npm tools the interop tests use (gltf-validator, draco3d, swagger-parser) and the pmtiles CLI
interop-tools:
	npm ci --no-audit --no-fund
	$(GO) install github.com/protomaps/go-pmtiles@v1.31.2

clean:
	rm -f svc
