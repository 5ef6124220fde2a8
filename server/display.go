package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/jsonrpc2"
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
	if !jsonMayHide(p.Value) {
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

// displayResult is a command's result as the client gets it: every string
// in it shown, never obeyed — results carry answers, notes, prompts, errors
// and diffs that clients print (Neovim's notify and scratch buffers, VS
// Code's messages). Ids, URIs and numbers have nothing to escape and pass
// unchanged; a result with nothing to escape is returned as it is.
func displayResult(v any) any {
	if v == nil {
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // no \u003c for <: \u is then rarer, and jsonMayHide faster
	if enc.Encode(v) != nil {
		return v
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if !jsonMayHide(raw) {
		return v
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil {
		return v
	}
	out, err := json.Marshal(displayTree(tree))
	if err != nil {
		return v
	}
	return jsonrpc2.RawMessage(out)
}

// displayTree escapes the strings of a decoded JSON value, keys included.
func displayTree(v any) any {
	switch v := v.(type) {
	case string:
		return tools.Displayable(v)
	case []any:
		for i := range v {
			v[i] = displayTree(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[tools.Displayable(k)] = displayTree(e)
		}
		return out
	}
	return v
}

// displayError is err as the client gets it in an error response: its
// message shown, never obeyed (a provider's or a config file's words may be
// in it), its code and data kept.
func displayError(err error) error {
	if err == nil || !tools.DisplayableChanged(err.Error()) {
		return err
	}
	shown := &jsonrpc2.Error{Message: tools.Displayable(err.Error())}
	var wire *jsonrpc2.Error
	if errors.As(err, &wire) {
		shown.Code, shown.Data = wire.Code, wire.Data
	}
	return shown
}

// jsonMayHide says whether JSON text may hold a string that Displayable
// changes: JSON writes a control character as a \u or \r escape, a C1 or
// bidi one as itself. False means surely not; true, look inside.
func jsonMayHide(raw []byte) bool {
	return bytes.Contains(raw, []byte(`\u`)) || bytes.Contains(raw, []byte(`\r`)) || tools.DisplayableChanged(string(raw))
}
