package toolproto

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/agent-lsp/agent-lsp/llm"
)

// jsonProtocol: exactly one JSON object per answer,
// {"thought": …, "tool_call": {"name": …, "input": {…}}} or {"thought": …, "response": …}.
// "tool_calls": [{…}, …] is accepted too, for several calls at once.
type jsonProtocol struct{}

func (jsonProtocol) Name() string     { return JSON }
func (jsonProtocol) JSONOutput() bool { return true }

func (jsonProtocol) Instructions(tools []llm.ToolSpec) string {
	s := `You cannot call tools natively. Answer with exactly one JSON object and nothing else.
To use a tool: {"thought": "why", "tool_call": {"name": "TOOL", "input": {ARGUMENTS}}}
When you are done: {"thought": "why", "response": "your answer to the user"}`
	if len(tools) > 0 {
		s += "\nTools:\n" + toolList(tools)
	}
	return s
}

type jsonCall struct {
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	// Args and Arguments are what models write instead of input.
	Args      json.RawMessage `json:"args,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type jsonAnswer struct {
	Thought   string     `json:"thought"`
	ToolCall  *jsonCall  `json:"tool_call,omitempty"`
	ToolCalls []jsonCall `json:"tool_calls,omitempty"`
	Response  *string    `json:"response,omitempty"`
}

func (jsonProtocol) Format(text string, calls []llm.ToolCall) string {
	a := jsonAnswer{Thought: text}
	switch len(calls) {
	case 0:
		a.Thought = ""
		a.Response = &text
	case 1:
		a.ToolCall = &jsonCall{Name: calls[0].Name, Input: validObject(calls[0].Args)}
	default:
		for _, c := range calls {
			a.ToolCalls = append(a.ToolCalls, jsonCall{Name: c.Name, Input: validObject(c.Args)})
		}
	}
	out, _ := json.Marshal(a)
	return string(out)
}

// validObject keeps args when they are a JSON object; a broken call from the
// history is replayed with no arguments.
func validObject(args json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return json.RawMessage("{}")
	}
	return args
}

var errNoJSONAnswer = errors.New(`your answer is not one JSON object with "tool_call" or "response"`)

func (jsonProtocol) Parse(answer string) (string, []llm.ToolCall, error) {
	text := stripFences(answer)
	var firstErr error
	for i := strings.IndexByte(text, '{'); i >= 0; {
		end := objectAt(text, i)
		if end < 0 {
			if firstErr == nil {
				firstErr = errors.New("your JSON object is not closed")
			}
			break
		}
		var a jsonAnswer
		if err := decodeLenient(text[i:end], &a); err != nil {
			if firstErr == nil {
				firstErr = errors.New("your answer is not valid JSON: " + err.Error())
			}
		} else if a.ToolCall != nil || len(a.ToolCalls) > 0 || a.Response != nil {
			return a.result()
		}
		next := strings.IndexByte(text[i+1:], '{')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if firstErr != nil {
		return "", nil, firstErr
	}
	return "", nil, errNoJSONAnswer
}

func (a jsonAnswer) result() (string, []llm.ToolCall, error) {
	calls := a.ToolCalls
	if a.ToolCall != nil {
		calls = append([]jsonCall{*a.ToolCall}, calls...)
	}
	var out []llm.ToolCall
	for i, c := range calls {
		if strings.TrimSpace(c.Name) == "" {
			return "", nil, errors.New(`a tool call has no "name"`)
		}
		input, ok := arguments(c.Input, c.Args, c.Arguments)
		if !ok {
			return "", nil, errors.New(`"input" of ` + c.Name + ` must be a JSON object`)
		}
		out = append(out, llm.ToolCall{ID: callID(i), Name: c.Name, Args: input})
	}
	if len(out) == 0 && a.Response != nil {
		return *a.Response, nil, nil
	}
	return a.Thought, out, nil
}

// arguments picks the first of the keys models use for arguments (input,
// args, arguments) that is present; none means {}. ok is false when it is not
// a JSON object.
func arguments(candidates ...json.RawMessage) (json.RawMessage, bool) {
	for _, c := range candidates {
		if len(c) > 0 && string(c) != "null" {
			return c, c[0] == '{'
		}
	}
	return json.RawMessage("{}"), true
}
