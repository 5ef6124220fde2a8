package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestInlineCompletionTakesTheSelectedItemsRangeEitherWay: with VS Code's
// suggest widget open, vscode-languageclient 9 sends
// context.selectedCompletionInfo.range as [start, end]; the request is
// answered as with {start, end}. A range of neither shape is refused,
// saying why.
func TestInlineCompletionTakesTheSelectedItemsRangeEitherWay(t *testing.T) {
	srv := llmtest.NewOpenAIResponder(t, func(map[string]any) llmtest.Turn { return llmtest.Turn{Text: "urn name\n"} })
	f := completionFixture(t, srv, servertest.Caps{InlineCompletion: true}, nil)
	u := f.uri("main.go")
	f.editor.Open(u, "package main\n\nfunc greet(name string) string {\n\tret\n}\n")
	start, end := map[string]any{"line": 3, "character": 1}, map[string]any{"line": 3, "character": 4}
	for name, rng := range map[string]any{
		"array":  []any{start, end},
		"object": map[string]any{"start": start, "end": end},
	} {
		var list struct {
			Items []inlineItem `json:"items"`
		}
		err := f.editor.Call("textDocument/inlineCompletion", map[string]any{
			"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 3, "character": 4},
			"context": map[string]any{"triggerKind": 2, "selectedCompletionInfo": map[string]any{"range": rng, "text": "return"}},
		}, &list)
		if err != nil || len(list.Items) != 1 || list.Items[0].InsertText != "urn name" {
			t.Errorf("the range as an %s: %+v %v", name, list.Items, err)
		}
	}
	err := f.editor.Call("textDocument/inlineCompletion", map[string]any{
		"textDocument": map[string]any{"uri": u}, "position": map[string]any{"line": 3, "character": 4},
		"context": map[string]any{"triggerKind": 2, "selectedCompletionInfo": map[string]any{"range": []any{start}, "text": "return"}},
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "two positions, not 1") {
		t.Errorf("a range of one position: %v", err)
	}
}
