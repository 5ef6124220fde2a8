package toolproto

import (
	"context"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/llm"
)

// Auto is the protocol name of AutoWrap.
const Auto = "auto"

// AutoWrap keeps p's native function calling and also reads calls a model
// wrote in its text, as models do behind a server that runs without a tool
// parser: Hermes-style <tool_call>{…}</tool_call> blocks, TOOL_CALL: lines,
// or a JSON-mode {"tool_call": …} object. Only an answer without native
// calls is read, and only calls of the tools offered are taken: anything
// else stays the model's text. It is opt-in (tool_protocol = "auto"): an
// answer that quotes a call as an example would be run as one.
func AutoWrap(p llm.Provider) llm.Provider { return &auto{p: p} }

type auto struct{ p llm.Provider }

func (a *auto) Name() string { return a.p.Name() + "+" + Auto }

func (a *auto) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := a.p.Chat(ctx, req)
	if err != nil || len(resp.ToolCalls) > 0 || len(req.Tools) == 0 {
		return resp, err
	}
	text, calls := writtenCalls(resp.Text)
	if len(calls) == 0 {
		return resp, nil
	}
	for _, c := range calls {
		if !offered(req.Tools, c.Name) {
			return resp, nil // an unknown name: the text was not meant as calls
		}
	}
	resp.Text, resp.ToolCalls, resp.StopReason = text, calls, llm.StopToolUse
	return resp, nil
}

func offered(tools []llm.ToolSpec, name string) bool {
	return slices.ContainsFunc(tools, func(t llm.ToolSpec) bool { return t.Name == name })
}

// writtenCalls finds the calls in a text answer, in the first format that
// yields any, and the text around them.
func writtenCalls(answer string) (string, []llm.ToolCall) {
	if text, calls := hermesCalls(answer); len(calls) > 0 {
		return text, calls
	}
	if strings.Contains(answer, marker) {
		if text, calls, err := (textProtocol{}).Parse(answer); err == nil {
			return text, calls
		}
	}
	if strings.Contains(answer, `"tool_call`) {
		if text, calls, err := (jsonProtocol{}).Parse(answer); err == nil {
			return text, calls
		}
	}
	return answer, nil
}

const hermesOpen, hermesClose = "<tool_call>", "</tool_call>"

// hermesCalls reads <tool_call>{"name":…,"arguments":{…}}</tool_call>
// blocks; a block that does not parse leaves the whole answer as text.
func hermesCalls(answer string) (string, []llm.ToolCall) {
	var calls []llm.ToolCall
	var rest strings.Builder
	text := answer
	for {
		i := strings.Index(text, hermesOpen)
		if i < 0 {
			rest.WriteString(text)
			break
		}
		rest.WriteString(text[:i])
		body := text[i+len(hermesOpen):]
		j := strings.Index(body, hermesClose)
		if j < 0 {
			return answer, nil
		}
		var c textCall
		if err := decodeLenient(strings.TrimSpace(stripFences(body[:j])), &c); err != nil || strings.TrimSpace(c.Name) == "" {
			return answer, nil
		}
		args, ok := arguments(c.Arguments, c.Args, c.Input)
		if !ok {
			return answer, nil
		}
		calls = append(calls, llm.ToolCall{ID: callID(len(calls)), Name: c.Name, Args: args})
		text = body[j+len(hermesClose):]
	}
	return strings.TrimSpace(rest.String()), calls
}
