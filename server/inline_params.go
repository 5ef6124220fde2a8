package server

import (
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// inlineCompletionParams are textDocument/inlineCompletion's params, read
// liberally: vscode-languageclient 9 sends the suggest widget's
// selectedCompletionInfo.range as [start, end], which the protocol's own
// type refuses, and the request with it.
type inlineCompletionParams struct {
	// Not protocol.TextDocumentPositionParams embedded: its decoder would
	// take the whole object and skip the context.
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Position     protocol.Position               `json:"position"`
	Context      struct {
		TriggerKind            protocol.InlineCompletionTriggerKind `json:"triggerKind"`
		SelectedCompletionInfo *struct {
			Range liberalRange `json:"range"`
			Text  string       `json:"text"`
		} `json:"selectedCompletionInfo,omitempty"`
	} `json:"context"`
}

// liberalRange is a range as {start, end} or as [start, end].
type liberalRange protocol.Range

func (r *liberalRange) UnmarshalJSON(data []byte) error {
	var pair []protocol.Position
	if json.Unmarshal(data, &pair) == nil {
		if len(pair) != 2 {
			return fmt.Errorf("a range as an array holds two positions, not %d", len(pair))
		}
		*r = liberalRange{Start: pair[0], End: pair[1]}
		return nil
	}
	var rng protocol.Range
	if err := json.Unmarshal(data, &rng); err != nil {
		return err
	}
	*r = liberalRange(rng)
	return nil
}
