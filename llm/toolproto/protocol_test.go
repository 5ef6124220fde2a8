package toolproto

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/llm"
)

func TestParseWhatRealModelsWrite(t *testing.T) {
	cases := []struct {
		proto    Protocol
		answer   string
		text     string
		calls    []string // name + compact args
		errMatch string
	}{
		{jsonProtocol{}, `{"thought": "read it", "tool_call": {"name": "read_file", "input": {"path": "hello.py"}}}`, "read it", []string{`read_file {"path":"hello.py"}`}, ""},
		{jsonProtocol{}, "Sure! Here you go:\n```json\n{\"thought\": \"x\", \"tool_call\": {\"name\": \"search\", \"input\": {\"pattern\": \"}\"}}}\n```\nHope that helps", "x", []string{`search {"pattern":"}"}`}, ""},
		{jsonProtocol{}, `{"thought": "t", "tool_call": {"name": "edit_file", "input": {"path": "a", "old_string": "{{", "new_string": "}}",},}}`, "t", []string{`edit_file {"path":"a","old_string":"{{","new_string":"}}"}`}, ""},
		{jsonProtocol{}, `{"thought": "done", "response": "It greets."}`, "It greets.", nil, ""},
		{jsonProtocol{}, `{"thought": "t", "tool_call": {"name": "list_files", "args": {"depth": 2}}}`, "t", []string{`list_files {"depth":2}`}, ""},
		{jsonProtocol{}, `{"thought": "t", "tool_call": {"name": "list_files"}}`, "t", []string{`list_files {}`}, ""},
		{jsonProtocol{}, `I think the answer is 42.`, "", nil, "not one JSON object"},
		{jsonProtocol{}, `{"thought": "t", "tool_call": {"name": "x", "input": {"a": 1}`, "", nil, "not closed"},
		{jsonProtocol{}, `{"thought": "t", "tool_call": {"name": "", "input": {}}}`, "", nil, `no "name"`},
		{jsonProtocol{}, `{"thought": "t", "tool_call": {"name": "x", "input": "path=a"}}`, "", nil, "must be a JSON object"},
		{textProtocol{}, "Let me look.\nTOOL_CALL: {\"name\": \"read_file\", \"args\": {\"path\": \"hello.py\"}}", "Let me look.", []string{`read_file {"path":"hello.py"}`}, ""},
		{textProtocol{}, "TOOL_CALL: {\"name\": \"a\", \"args\": {\"x\": \"{\\\"}\"}}\nTOOL_CALL: {\"name\": \"b\", \"args\": {\"n\": [1, {\"m\": 2}]}}\nthen I decide", "then I decide", []string{`a {"x":"{\"}"}`, `b {"n":[1,{"m":2}]}`}, ""},
		{textProtocol{}, "```\nTOOL_CALL: {\"name\": \"exec\", \"args\": {\"command\": \"ls -R .\",},}\n```", "", []string{`exec {"command":"ls -R ."}`}, ""},
		{textProtocol{}, "The workspace has three files.", "The workspace has three files.", nil, ""},
		{textProtocol{}, "TOOL_CALL: read_file hello.py", "", nil, "not followed by a JSON object"},
		{textProtocol{}, "TOOL_CALL: {\"name\": \"read_file\", \"args\": {\"path\": \"x\"}", "", nil, "not closed"},
		{textProtocol{}, "TOOL_CALL: {\"args\": {}}", "", nil, `no "name"`},
	}
	for _, c := range cases {
		text, calls, err := c.proto.Parse(c.answer)
		if c.errMatch != "" {
			if err == nil || !strings.Contains(err.Error(), c.errMatch) {
				t.Errorf("%s %q: err %v, want %q", c.proto.Name(), c.answer, err, c.errMatch)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.proto.Name(), c.answer, err)
			continue
		}
		var got []string
		for _, call := range calls {
			var buf bytes.Buffer
			json.Compact(&buf, call.Args)
			got = append(got, call.Name+" "+buf.String())
		}
		if text != c.text || !reflect.DeepEqual(got, c.calls) {
			t.Errorf("%s %q:\n got %q %q\nwant %q %q", c.proto.Name(), c.answer, text, got, c.text, c.calls)
		}
	}
}

// FuzzParse: no input panics either parser.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"thought": "t", "tool_call": {"name": "x", "input": {"a": "}"}}}`,
		"TOOL_CALL: {\"name\": \"a\", \"args\": {}}",
		"```json\n{\"response\": \"hi\",}\n```", "{{{{", "TOOL_CALL: {\"", `{"a": "\`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		jsonProtocol{}.Parse(answer)
		textProtocol{}.Parse(answer)
	})
}

// FuzzRoundTrip: whatever calls are formatted, parsing gives them back.
func FuzzRoundTrip(f *testing.F) {
	f.Add("read it", "read_file", "path", "hello.py", "search", 3)
	f.Add("", "a}b", "k{", "v\"}", "x", 0)
	f.Fuzz(func(t *testing.T, thought, name1, key, value, name2 string, n int) {
		// Models speak JSON, so their strings are valid UTF-8.
		for _, s := range []string{thought, name1, name2, key, value} {
			if !utf8.ValidString(s) || strings.Contains(s, marker) {
				t.Skip()
			}
		}
		if strings.TrimSpace(name1) == "" || strings.TrimSpace(name2) == "" || strings.Contains(thought+name1, marker) {
			t.Skip()
		}
		args1, _ := json.Marshal(map[string]any{key: value, "n": n})
		args2, _ := json.Marshal(map[string]any{"list": []any{value, n, map[string]string{key: "}"}}})
		for _, calls := range [][]llm.ToolCall{
			{{Name: name1, Args: args1}},
			{{Name: name1, Args: args1}, {Name: name2, Args: args2}},
		} {
			for _, p := range []Protocol{jsonProtocol{}, textProtocol{}} {
				_, got, err := p.Parse(p.Format(thought, calls))
				if err != nil {
					t.Fatalf("%s: %v\n%s", p.Name(), err, p.Format(thought, calls))
				}
				if len(got) != len(calls) {
					t.Fatalf("%s: %d calls back, want %d", p.Name(), len(got), len(calls))
				}
				for i := range calls {
					var a, b any
					json.Unmarshal(calls[i].Args, &a)
					json.Unmarshal(got[i].Args, &b)
					if got[i].Name != calls[i].Name || !reflect.DeepEqual(a, b) {
						t.Fatalf("%s: call %d = %s %s, want %s %s", p.Name(), i, got[i].Name, got[i].Args, calls[i].Name, calls[i].Args)
					}
				}
			}
		}
		// A final answer survives too.
		for _, p := range []Protocol{jsonProtocol{}, textProtocol{}} {
			text, calls, err := p.Parse(p.Format(thought, nil))
			if err != nil || len(calls) != 0 || text != strings.TrimSpace(thought) && p.Name() == Text || text != thought && p.Name() == JSON {
				t.Fatalf("%s final answer: %q %v %v", p.Name(), text, calls, err)
			}
		}
	})
}
