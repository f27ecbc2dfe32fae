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
# make run builds the binary here (ignored by git) and passes RUN_ARGS,
# e.g. RUN_ARGS='-c examples/mqtt-to-sse.yaml'.
RUN_BIN   ?= bin/gobridge
RUN_ARGS  ?=

.PHONY: all build run test test-unit it-setup lint bench bench-e2e fuzz tidy clean

all: lint build test

## build: compile every module, in the workspace and standalone. -o
## /dev/null: a module that is one main package (tools/dynamoemu) would
## otherwise leave its binary in the tree.
build:
	@set -e; for m in $(MODULES); do \
		echo "== build $$m"; \
		(cd $$m && $(GO) build -o /dev/null ./... && GOWORK=off $(GO) build -o /dev/null ./...); \
	done

## run: start the bridge on its embedded default (no external broker).
## In a terminal the bridge runs as its own foreground job (bash -m), so
## Ctrl-C reaches it alone: it drains and stops, and make exits with its
## status (0) instead of dying of the signal with an error line.
run:
	@mkdir -p $(dir $(RUN_BIN)) && cd distro && $(GO) build -o $(abspath $(RUN_BIN)) ./cmd/gobridge
	@if [ -t 0 ]; then exec bash -mc '"$$0" run "$$@"; exit $$?' $(RUN_BIN) $(RUN_ARGS); \
	 else exec $(RUN_BIN) run $(RUN_ARGS); fi

## test: lint, machine set-up for the integration suites, then every
## module's tests with the race detector, standalone
test: lint it-setup test-unit

## it-setup: install/start what integration suites need (idempotent)
it-setup:
	@scripts/it-setup.sh

## test-unit: every module's tests, then a summary: each module's result,
## the passed, skipped and failed counts, and the skipped tests with their
## reasons (tools/cmd/testsummary reads go test -json). Every module runs
## even after one failed; the target fails if any did.
test-unit:
	@sum=$$(mktemp -d) && trap 'rm -rf "$$sum"' EXIT && \
	(cd tools && $(GO) build -o "$$sum/testsummary" ./cmd/testsummary) && \
	mkdir "$$sum/records" && rc=0 && \
	for m in $(MODULES); do \
		echo "== test $$m"; \
		(cd $$m && { GOWORK=off $(GO) test -race -count=1 -timeout 10m -json ./... 2>&1; echo "testsummary: exit $$?"; }) | \
			"$$sum/testsummary" -module $$m -record "$$sum/records" || rc=1; \
		out=$$(cd $$m && GOWORK=off $(GO) test -count=1 -run 'NotAllocate' ./... 2>&1) || \
			{ echo "$$out"; "$$sum/testsummary" -module $$m -record "$$sum/records" -fail "allocation pass"; rc=1; }; \
	done; \
	"$$sum/testsummary" -report "$$sum/records" || rc=1; \
	exit $$rc

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
