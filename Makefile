# The commands a developer and CI run. `make check` is the README's test command.
.PHONY: build check test lint bench install

build:
	go build -o bin/agent-lsp ./cmd/agent-lsp

install:
	go install ./cmd/agent-lsp

lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	go vet ./...

test:
	go test -race -count=1 ./...

check: lint test

bench:
	go test -run '^$$' -bench . -benchmem ./...
