package server

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/server/completion"
)

// Completion as you type on the LSP wire: textDocument/inlineCompletion
// (ghost text), and textDocument/completion where the user turned it on for
// clients without inline completion. The suggestions are
// server/completion's; this file maps them.

// completionEnv is what the completion engine needs of the connection now.
func (s *Server) completionEnv() completion.Env {
	return completion.Env{Settings: s.workspace.settings(), Encoding: s.caps.get().encoding,
		ShownPath: s.workspace.shownPath, CommentSyntax: commentSyntax}
}

func (s *Server) inlineCompletion(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params inlineCompletionParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	at, err := s.completer.Suggest(ctx, params.TextDocument.URI, params.Position, s.completionEnv())
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	list := &protocol.InlineCompletionList{Items: []protocol.InlineCompletionItem{}}
	if at.Text != "" {
		rng := protocol.Range{Start: at.Pos, End: at.Pos}
		list.Items = append(list.Items, protocol.InlineCompletionItem{InsertText: protocol.String(at.Text), Range: &rng})
	} else if item := s.nextEdits.item(ctx, params.TextDocument.URI, params.Position); item != nil {
		// Nothing to complete at the cursor: the next edit, where one is due.
		list.Items = append(list.Items, *item)
	}
	return list, nil
}

// completion answers textDocument/completion with the suggestion as one
// item, for clients without inline completion. It replaces the word before
// the cursor with itself plus the suggestion, so clients filtering by that
// word keep it, and sorts after everything else: the language's own server's
// items come first.
func (s *Server) completion(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
	var params protocol.CompletionParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	list := &protocol.CompletionList{IsIncomplete: true, Items: []protocol.CompletionItem{}}
	if !s.workspace.settings().Completion.ItemsOn() {
		return list, nil
	}
	at, err := s.completer.Suggest(ctx, params.TextDocument.URI, params.Position, s.completionEnv())
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, "agent-lsp: "+err.Error())
	}
	if at.Text == "" {
		return list, nil
	}
	enc := s.caps.get().encoding
	start := at.Pos
	start.Character -= enc.Width(at.Word)
	lines := strings.Count(at.Text, "\n") + 1
	label, _, _ := strings.Cut(at.Word+at.Text, "\n")
	detail := fmt.Sprintf("agent-lsp · %s · %d line(s)", at.Model, lines)
	if lines > 1 {
		label += " …"
	}
	list.Items = append(list.Items, protocol.CompletionItem{
		Label: label, Kind: protocol.CompletionItemKindText, Detail: protocol.NewOptional(detail),
		SortText: protocol.NewOptional("~~agent-lsp"), FilterText: protocol.NewOptional(at.Word + at.Text),
		TextEdit: &protocol.TextEdit{Range: protocol.Range{Start: start, End: at.Pos}, NewText: at.Word + at.Text},
	})
	return list, nil
}
