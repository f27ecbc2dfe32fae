# gobridge: one entry point for building, running, testing and measuring
# every module of the monorepo. Each module is also checked on its own
# (GOWORK=off) so that a user who `go get`s one plugin gets a module that
# builds without the workspace.

GO        ?= go
MODULES   := $(shell find . -name go.mod -not -path './.git/*' -printf '%h\n' | sed 's|^\./||' | sort)
FUZZTIME  ?= 20s
BENCHTIME ?= 1s
BENCHCPU  ?= 1
# -race needs cgo; keep it on everywhere tests run.
export CGO_ENABLED := 1

.PHONY: all build run test test-unit it-setup lint bench bench-e2e fuzz tidy clean

all: lint build test

## build: compile every module, in the workspace and standalone
build:
	@set -e; for m in $(MODULES); do \
		echo "== build $$m"; \
		(cd $$m && $(GO) build ./... && GOWORK=off $(GO) build ./...); \
	done

## run: start the bridge on its embedded default (no external broker)
run:
	$(GO) run ./distro/cmd/gobridge run

## test: lint, machine set-up for the integration suites, then every
## module's tests with the race detector, standalone
test: lint it-setup test-unit

## it-setup: install/start what integration suites need (idempotent)
it-setup:
	@scripts/it-setup.sh

test-unit:
	@set -e; for m in $(MODULES); do \
		echo "== test $$m"; \
		(cd $$m && GOWORK=off $(GO) test -race -count=1 -timeout 10m ./... && \
		 { out=$$(GOWORK=off $(GO) test -count=1 -run 'NotAllocate' ./... 2>&1) || { echo "$$out"; exit 1; }; }); \
	done

## lint: gofmt, go vet and the doc check over every module; any finding fails
lint:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@cd tools && $(GO) run ./cmd/doccheck $(addprefix ../,$(MODULES))
	@set -e; for m in $(MODULES); do \
		echo "== vet $$m"; \
		(cd $$m && $(GO) vet ./... && GOWORK=off $(GO) vet ./...); \
	done

## bench: run every benchmark (one core by default: BENCHCPU=1)
bench:
	@set -e; for m in $(MODULES); do \
		(cd $$m && GOWORK=off $(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) -cpu=$(BENCHCPU) ./...); \
	done

## bench-e2e: process-level harness (tools/bench): the gobridge binary against
## a hand-written forwarder (AMQP 0-9-1 -> AMQP 0-9-1, MQTT v5 -> AMQP 0-9-1)
## on a RabbitMQ node and a Mosquitto of its own, then the SIGKILL loop. Needs
## rabbitmq-server and mosquitto installed; not part of test or CI. Writes
## docs/bench-chart.svg and data/bench-e2e/. BENCH_E2E_FLAGS: e.g. -n 100000
BENCH_E2E_FLAGS ?=
bench-e2e:
	cd tools/bench && $(GO) run ./cmd/benchrun -out ../../data/bench-e2e -chart ../../docs/bench-chart.svg $(BENCH_E2E_FLAGS)
	cd tools/bench && $(GO) run ./cmd/benchrun kill -n 50000

## fuzz: run each fuzz target for FUZZTIME, one after another
fuzz:
	@set -e; for m in $(MODULES); do \
		for pkg in $$(cd $$m && GOWORK=off $(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
			for f in $$(cd $$m && grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' $$(GOWORK=off $(GO) list -f '{{range .TestGoFiles}}{{$$.Dir}}/{{.}} {{end}}{{range .XTestGoFiles}}{{$$.Dir}}/{{.}} {{end}}' $$pkg) 2>/dev/null | sed 's/func //'); do \
				echo "== fuzz $$pkg $$f"; \
				(cd $$m && GOWORK=off $(GO) test -run='^$$' -fuzz="^$$f\$$" -fuzztime=$(FUZZTIME) $$pkg); \
			done; \
		done; \
	done

## tidy: go mod tidy in every module
tidy:
	@set -e; for m in $(MODULES); do (cd $$m && GOWORK=off $(GO) mod tidy); done

clean:
	rm -rf data
