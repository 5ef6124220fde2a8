package server

import (
	"bytes"
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/tools"
)

// displayClient is the client as the server speaks to it: the text of every
// log line, message, question and progress report is shown, never obeyed
// (tools.Displayable) — a model's answer, a command's output or a file's
// text may carry escape sequences, and editors show logs in terminals too.
// Edits are not touched: they are the files' content, which the user
// previews as it is.
type displayClient struct{ protocol.Client }

func (c displayClient) LogMessage(ctx context.Context, p *protocol.LogMessageParams) error {
	q := *p
	q.Message = tools.Displayable(q.Message)
	return c.Client.LogMessage(ctx, &q)
}

func (c displayClient) ShowMessage(ctx context.Context, p *protocol.ShowMessageParams) error {
	q := *p
	q.Message = tools.Displayable(q.Message)
	return c.Client.ShowMessage(ctx, &q)
}

// ShowMessageRequest shows the question's text; the actions' titles are
// ours, and the answer is matched against them.
func (c displayClient) ShowMessageRequest(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	q := *p
	q.Message = tools.Displayable(q.Message)
	return c.Client.ShowMessageRequest(ctx, &q)
}

// Progress shows a report's title and message.
func (c displayClient) Progress(ctx context.Context, p *protocol.ProgressParams) error {
	// JSON carries a control character as \u escape, a bidi one as itself:
	// a report with neither needs no look inside.
	if !bytes.Contains(p.Value, []byte(`\u`)) && !tools.DisplayableChanged(string(p.Value)) {
		return c.Client.Progress(ctx, p)
	}
	var value map[string]any
	if json.Unmarshal(p.Value, &value) == nil {
		changed := false
		for _, key := range []string{"title", "message"} {
			if s, ok := value[key].(string); ok && tools.DisplayableChanged(s) {
				value[key], changed = tools.Displayable(s), true
			}
		}
		if changed {
			if raw, err := json.Marshal(value); err == nil {
				q := *p
				q.Value = raw
				p = &q
			}
		}
	}
	return c.Client.Progress(ctx, p)
}
