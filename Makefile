# The commands a developer and CI run. `make check` is the README's test command.
.PHONY: build check test lint cross release bench install deps vscode

build:
	go build -o bin/agent-lsp ./cmd/agent-lsp

install:
	go install ./cmd/agent-lsp

# staticcheck is pinned: the module proxy answers @latest with what it
# has, and a new release's new checks would fail an unchanged tree.
lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	go vet ./...
	go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# The sandbox's own tests, the hostile corpus, the language servers in
# the sandbox and a hostile language server on every wire run again at
# the weaker levels a machine without user namespaces or Landlock gets.
test:
	go test -race -count=1 ./...
	AGENT_LSP_SANDBOX=landlock go test -count=1 -run 'Hostile|SmallModule|ExecuteCommand|Sandbox' ./tools/
	AGENT_LSP_SANDBOX=none go test -count=1 -run 'Hostile|SmallModule|ExecuteCommand|Sandbox' ./tools/
	AGENT_LSP_SANDBOX=landlock go test -count=1 -run 'Start|Server' ./tools/sandbox/
	AGENT_LSP_SANDBOX=none go test -count=1 -run 'Start|Server' ./tools/sandbox/
	AGENT_LSP_SANDBOX=landlock go test -count=1 -run 'InTheSandbox' ./server/agentrun/
	AGENT_LSP_SANDBOX=none go test -count=1 -run 'InTheSandbox' ./server/agentrun/
	AGENT_LSP_SANDBOX=landlock go test -count=1 -run 'HostileServer' ./server/agentrun/ ./server/ ./server/acp/ ./cmd/agent-lsp/
	AGENT_LSP_SANDBOX=none go test -count=1 -run 'HostileServer' ./server/agentrun/ ./server/ ./server/acp/ ./cmd/agent-lsp/

# Node packages the tests need: the VS Code extension, the LSP wire test,
# the ACP wire test (the official TypeScript ACP library), the reference
# MCP server (server-everything) the MCP tests start, and the real VS Code
# (code-server on Node 24, playwright-core) the extension's end-to-end test
# drives; that last one is kept between runs and reinstalled when its lock
# files change. Also the Node language servers (pyright,
# typescript-language-server) the sandbox's tests start.
deps:
	npm ci --no-audit --no-fund --prefix tools/toolstest/testdata/servers
	npm ci --no-audit --no-fund --prefix server/testdata/nodeclient
	npm ci --no-audit --no-fund --prefix server/acp/testdata/nodeclient
	npm ci --no-audit --no-fund --prefix tools/mcp/testdata/everything
	npm ci --no-audit --no-fund --prefix editors/vscode
	bash editors/vscode/testdata/e2e/install.sh

vscode: deps
	npm run --prefix editors/vscode compile
	npm test --prefix editors/vscode

# Every package builds and vets for linux, darwin and windows, amd64 and arm64.
cross:
	bash .ci/cross

# Six stripped binaries, a .vsix per platform carrying its binary, and the
# ACP Registry's archives and entry (RELEASE_BASE_URL: where they will be
# downloaded from), in dist/.
release: deps
	bash .ci/release

check: lint cross vscode test

bench:
	go test -run '^$$' -bench . -benchmem ./...
