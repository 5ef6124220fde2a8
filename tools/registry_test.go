package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func newTestRegistry(t *testing.T, root string) (*Registry, *Workspace) {
	t.Helper()
	w, err := NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return NewDefaultRegistry(w, NewPolicy(DefaultAllowlist), nil, CommandLimits{}), w
}

func TestSchemasNameTheDocumentedArguments(t *testing.T) {
	r, _ := newTestRegistry(t, t.TempDir())
	want := map[string][]string{
		"read_file":       {"path", "offset", "limit"},
		"list_files":      {"path", "depth"},
		"search":          {"pattern", "path", "glob"},
		"write_file":      {"path", "content"},
		"edit_file":       {"path", "old_string", "new_string", "replace_all"},
		"execute_command": {"command", "timeout_s"},
	}
	wantRequired := map[string][]string{
		"read_file": {"path"}, "list_files": nil, "search": {"pattern"}, "write_file": {"path", "content"},
		"edit_file": {"path", "old_string", "new_string"}, "execute_command": {"command"},
	}
	if len(r.Tools()) != len(want) {
		t.Fatalf("got %d tools, want %d", len(r.Tools()), len(want))
	}
	for _, tool := range r.Tools() {
		var s struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(tool.Schema(), &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" {
			t.Errorf("%s: schema type %q", tool.Name(), s.Type)
		}
		for _, arg := range want[tool.Name()] {
			if _, ok := s.Properties[arg]; !ok {
				t.Errorf("%s: no argument %q in %s", tool.Name(), arg, tool.Schema())
			}
		}
		if len(s.Properties) != len(want[tool.Name()]) {
			t.Errorf("%s: arguments %v, want %v", tool.Name(), s.Properties, want[tool.Name()])
		}
		if strings.Join(s.Required, ",") != strings.Join(wantRequired[tool.Name()], ",") {
			t.Errorf("%s: required %v, want %v", tool.Name(), s.Required, wantRequired[tool.Name()])
		}
		if tool.Description() == "" {
			t.Errorf("%s has no description", tool.Name())
		}
	}
}

func TestRegistryTurnsMistakesIntoObservations(t *testing.T) {
	r, _ := newTestRegistry(t, t.TempDir())
	cases := []struct {
		name, tool, args, want string
	}{
		{"unknown tool", "delete_everything", `{}`, `unknown tool "delete_everything"; available tools: edit_file, execute_command`},
		{"not JSON", "read_file", `{"path": "a.txt"`, "not valid JSON"},
		{"not an object", "read_file", `["a.txt"]`, "must be a JSON object"},
		{"missing required", "read_file", `{}`, "path"},
		{"wrong type", "read_file", `{"path": 12}`, "invalid arguments for read_file"},
		{"unknown argument", "read_file", `{"path": "a", "mode": "fast"}`, "mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := r.Execute(context.Background(), c.tool, json.RawMessage(c.args))
			if err != nil {
				t.Fatalf("Go error %v; want an observation", err)
			}
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Fatalf("got %+v, want an error observation containing %q", res, c.want)
			}
		})
	}
}
