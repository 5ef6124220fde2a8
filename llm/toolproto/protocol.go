// Package toolproto lets models without native function calling use tools,
// through text: the json protocol (one JSON object per answer, the
// Llama/Ollama pattern) or the text protocol (TOOL_CALL: lines, the vLLM bot
// pattern). Wrap turns any llm.Provider into one that describes the tools in
// the system prompt, renders tool calls and results into the conversation as
// text, and parses the model's answer back into tool calls. A malformed
// answer is reported in Response.FormatError for the loop to feed back.
package toolproto

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-lsp/agent-lsp/llm"
)

// Protocol names.
const (
	Native = "native"
	JSON   = "json"
	Text   = "text"
)

// Protocol is one text encoding of tool calls.
type Protocol interface {
	Name() string
	// Instructions tell the model the format, with the tools listed.
	Instructions(tools []llm.ToolSpec) string
	// Format renders an assistant turn (text and calls) as the model would have written it.
	Format(text string, calls []llm.ToolCall) string
	// Parse reads an answer: the calls in it and the text outside them, or an
	// error saying what is wrong with the format.
	Parse(answer string) (text string, calls []llm.ToolCall, err error)
	// JSONOutput says whether the provider's JSON mode should be asked for.
	JSONOutput() bool
}

// ByName returns the protocol for a name ("json" or "text").
func ByName(name string) (Protocol, error) {
	switch name {
	case JSON:
		return jsonProtocol{}, nil
	case Text:
		return textProtocol{}, nil
	}
	return nil, fmt.Errorf("unknown tool protocol %q: use native, json or text", name)
}

// Wrap makes p speak proto instead of native function calling.
func Wrap(p llm.Provider, proto Protocol) llm.Provider { return &wrapped{p: p, proto: proto} }

type wrapped struct {
	p     llm.Provider
	proto Protocol
}

func (w *wrapped) Name() string { return w.p.Name() + "+" + w.proto.Name() }

func (w *wrapped) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	inner := llm.Request{OnText: req.OnText, OnReasoning: req.OnReasoning, JSONOutput: w.proto.JSONOutput()}
	inner.System = req.System
	if len(req.Tools) > 0 {
		inner.System += "\n\n" + w.proto.Instructions(req.Tools)
	}
	if w.proto.JSONOutput() {
		// Streaming raw JSON to the user helps nobody.
		inner.OnText = nil
	}
	for _, m := range req.Messages {
		switch m.Role {
		case llm.RoleAssistant:
			inner.Messages = append(inner.Messages, llm.Message{Role: llm.RoleAssistant, Text: w.proto.Format(m.Text, m.ToolCalls)})
		case llm.RoleTool:
			inner.Messages = append(inner.Messages, llm.Message{Role: llm.RoleUser, Text: FormatResults(m.ToolResults)})
		default:
			inner.Messages = append(inner.Messages, m)
		}
	}
	resp, err := w.p.Chat(ctx, inner)
	if err != nil {
		return resp, err
	}
	text, calls, perr := w.proto.Parse(resp.Text)
	// Signatures are not kept: the text sent back is rebuilt, not what was signed.
	out := llm.Response{Text: text, ToolCalls: calls, Usage: resp.Usage, StopReason: llm.StopEndTurn, Reasoning: resp.Reasoning}
	switch {
	case perr != nil:
		out.Text = resp.Text
		out.FormatError = perr.Error() + "\n\n" + w.proto.Instructions(nil)
	case len(calls) > 0:
		out.StopReason = llm.StopToolUse
	case resp.StopReason == llm.StopMaxTokens:
		out.StopReason = llm.StopMaxTokens
	}
	return out, nil
}

// FormatResults renders tool results as the user message that follows a turn,
// naming each call and its result (the vLLM bot's "Tool execution results").
func FormatResults(results []llm.ToolResult) string {
	var b strings.Builder
	b.WriteString("Tool execution results:\n")
	for i, r := range results {
		status := "Result"
		if r.IsError {
			status = "Error"
		}
		fmt.Fprintf(&b, "%d. %s (call %s)\n%s: %s\n", i+1, r.Name, r.CallID, status, r.Content)
	}
	return b.String()
}

func toolList(tools []llm.ToolSpec) string {
	var b strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&b, "- %s: %s\n  input schema: %s\n", t.Name, strings.TrimSpace(t.Description), t.Schema)
	}
	return b.String()
}

func callID(i int) string { return "call_" + strconv.Itoa(i+1) }
