package config

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// clientOnlyVSCodeSettings are the VS Code extension's own settings, which
// the server does not read.
var clientOnlyVSCodeSettings = []string{"path"}

// TestEveryLSPSettingIsDeclaredInVSCode: the VS Code client sends its whole
// agent-lsp section, so a setting the extension does not declare could come
// from a repository's .vscode/settings.json; declared, it carries a scope
// that keeps workspace values out (machine) or allows them where harmless
// (what an unmarked editor may set too), and says what the table says.
func TestEveryLSPSettingIsDeclaredInVSCode(t *testing.T) {
	data, err := os.ReadFile("../../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	type property struct {
		Type        json.RawMessage `json:"type"`
		Items       struct{ Type string }
		Enum        []string        `json:"enum"`
		Scope       string          `json:"scope"`
		Default     json.RawMessage `json:"default"`
		Description string          `json:"description"`
	}
	var manifest struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]property `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	props := manifest.Contributes.Configuration.Properties
	declared := map[string]bool{}
	for _, r := range table {
		if r.JSON == "" {
			continue
		}
		key := "agent-lsp." + r.JSON
		declared[key] = true
		p, ok := props[key]
		if !ok {
			t.Errorf("%s: not declared in editors/vscode/package.json", key)
			continue
		}
		scope := "machine"
		if r.MaySet(UnmarkedEditor) == "yes" {
			scope = "machine-overridable"
		}
		if p.Scope != scope {
			t.Errorf("%s: scope %q, want %q", key, p.Scope, scope)
		}
		// The client sends defaults too: a switch's or a group's default
		// must be null, or it would override the config file's value on
		// every change.
		typ := map[string]string{"string": `"string"`, "integer": `"number"`, "boolean": `["boolean","null"]`,
			"list of strings": `"array"`, "table": `["object","null"]`}[r.Type()]
		if got := strings.ReplaceAll(string(p.Type), " ", ""); got != typ {
			t.Errorf("%s: type %s, want %s", key, got, typ)
		}
		if strings.Contains(typ, "null") && string(p.Default) != "null" {
			t.Errorf("%s: default %s, want null (unset)", key, p.Default)
		}
		if r.Type() == "list of strings" && p.Items.Type != "string" {
			t.Errorf("%s: items of type %q, want string", key, p.Items.Type)
		}
		if want := append([]string{""}, r.Enum...); r.Enum != nil && !slices.Equal(p.Enum, want) || r.Enum == nil && p.Enum != nil {
			t.Errorf("%s: enum %q, want %q", key, p.Enum, r.Enum)
		}
		// The table's sentence, the manifest going on with what VS Code's
		// user should know (what 0 or unset means, the remote window).
		if !strings.HasPrefix(p.Description, strings.TrimSuffix(r.Doc, ".")) {
			t.Errorf("%s: description %q does not start with the table's %q", key, p.Description, r.Doc)
		}
	}
	for key := range props {
		name, ok := strings.CutPrefix(key, "agent-lsp.")
		if !declared[key] && !(ok && slices.Contains(clientOnlyVSCodeSettings, name)) {
			t.Errorf("%s: declared in package.json, but not a setting of the table nor the extension's own", key)
		}
	}
}
