package acp_test

import (
	"slices"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

// TestAServerWithPromptsAloneFillsTheMenu: an MCP server that declares
// prompts and no tools is ready, and its prompts are slash commands.
func TestAServerWithPromptsAloneFillsTheMenu(t *testing.T) {
	f := newFixture(t, nil, llmtest.NewOpenAIServer(t), fixtureOptions{}) // a model, or session/new asks for a sign-in
	f.newSession(sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "notes", Command: mcptest.TestServer(t), Args: []string{"-prompts-only"}, Env: []sdk.EnvVariable{}}})
	f.editor.waitUntil(t, "its prompts in the menu", func() bool {
		updates, _, _, _ := f.editor.snapshot()
		return slices.Contains(lastCommands(updates), "notes:review")
	})
}
