package config

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestEveryLSPSettingIsDeclaredInVSCode: the VS Code client sends its whole
// agent-lsp section, so a setting the extension does not declare could come
// from a repository's .vscode/settings.json; declared, it carries a scope
// that keeps workspace values out (machine) or allows them where harmless.
func TestEveryLSPSettingIsDeclaredInVSCode(t *testing.T) {
	data, err := os.ReadFile("../../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Scope   string          `json:"scope"`
					Default json.RawMessage `json:"default"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	harmless := map[string]bool{"model": true, "toolProtocol": true, "strategy": true}
	st := reflect.TypeOf(Settings{})
	for i := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if name == "-" || name == "" {
			continue
		}
		p, ok := manifest.Contributes.Configuration.Properties["agent-lsp."+name]
		want := map[bool]string{false: "machine", true: "machine-overridable"}[harmless[name]]
		if !ok || p.Scope != want {
			t.Errorf("agent-lsp.%s: declared %v with scope %q, want %q", name, ok, p.Scope, want)
		}
		// The client sends defaults too: a switch's default must be null, or
		// it would override the config file's value on every change.
		if st.Field(i).Type == reflect.TypeFor[*bool]() && ok && string(p.Default) != "null" {
			t.Errorf("agent-lsp.%s: default %s, want null (unset)", name, p.Default)
		}
	}
}
