package toolproto

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/llm"
)

// textProtocol: TOOL_CALL: {"name": …, "args": {…}} lines anywhere in the
// answer, several allowed; the rest is text. An answer without one is final.
type textProtocol struct{}

const marker = "TOOL_CALL:"

func (textProtocol) Name() string     { return Text }
func (textProtocol) JSONOutput() bool { return false }

func (textProtocol) Instructions(tools []llm.ToolSpec) string {
	s := `You cannot call tools natively. To use a tool, write a line
TOOL_CALL: {"name": "TOOL", "args": {ARGUMENTS}}
with the arguments as one JSON object; several TOOL_CALL lines are allowed. You will get the results in the next message.
When you are done, answer without any TOOL_CALL line.`
	if len(tools) > 0 {
		s += "\nTools:\n" + toolList(tools)
	}
	return s
}

type textCall struct {
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

func (textProtocol) Format(text string, calls []llm.ToolCall) string {
	var b strings.Builder
	b.WriteString(text)
	for _, c := range calls {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		line, _ := json.Marshal(textCall{Name: c.Name, Args: validObject(c.Args)})
		b.WriteString(marker + " ")
		b.Write(line)
	}
	return b.String()
}

func (textProtocol) Parse(answer string) (string, []llm.ToolCall, error) {
	var calls []llm.ToolCall
	var rest strings.Builder
	text := answer
	for {
		i := strings.Index(text, marker)
		if i < 0 {
			rest.WriteString(text)
			break
		}
		rest.WriteString(text[:i])
		after := text[i+len(marker):]
		j := strings.IndexByte(after, '{')
		if j < 0 || strings.TrimSpace(strings.Trim(after[:j], "`")) != "" {
			return "", nil, fmt.Errorf("TOOL_CALL number %d is not followed by a JSON object", len(calls)+1)
		}
		end := objectAt(after, j)
		if end < 0 {
			return "", nil, fmt.Errorf("the JSON object of TOOL_CALL number %d is not closed", len(calls)+1)
		}
		var c textCall
		if err := decodeLenient(after[j:end], &c); err != nil {
			return "", nil, fmt.Errorf("TOOL_CALL number %d is not valid JSON: %v", len(calls)+1, err)
		}
		if strings.TrimSpace(c.Name) == "" {
			return "", nil, fmt.Errorf(`TOOL_CALL number %d has no "name"`, len(calls)+1)
		}
		args, ok := arguments(c.Args, c.Arguments, c.Input)
		if !ok {
			return "", nil, fmt.Errorf(`"args" of TOOL_CALL number %d must be a JSON object`, len(calls)+1)
		}
		calls = append(calls, llm.ToolCall{ID: callID(len(calls)), Name: c.Name, Args: args})
		text = after[end:]
	}
	return strings.TrimSpace(cleanFences(rest.String())), calls, nil
}

// cleanFences drops fences left empty once the calls inside were taken out.
func cleanFences(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
				j++
			}
			if j < len(lines) && strings.TrimSpace(lines[j]) == "```" {
				i = j
				continue
			}
		}
		out = append(out, lines[i])
	}
	return strings.Join(out, "\n")
}
