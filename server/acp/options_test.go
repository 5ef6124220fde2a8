package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// The session offers its mode, model (what the provider lists) and
// thinking as config options; a change applies from the next turn and is
// announced; an option or a value the session does not offer is an error.
func TestConfigOptions(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	srv.SetModels([]string{"gpt-test", "gpt-other"}, "")
	f := newFixture(t, nil, srv, fixtureOptions{})
	s := f.newSession()
	opts := s.ConfigOptions
	if len(opts) != 3 || optionValue(opts, "mode") != "code" || optionValue(opts, "model") != "gpt-test" || optionValue(opts, "thinking") != "default" {
		t.Fatalf("configOptions = %s", toJSON(opts))
	}
	if got := toJSON(opts[1]); !strings.Contains(got, `"category":"model"`) || !strings.Contains(got, `"value":"gpt-other"`) {
		t.Errorf("model option = %s", got)
	}
	if got := toJSON(opts[2]); !strings.Contains(got, `"category":"thought_level"`) || !strings.Contains(got, `"value":"high"`) {
		t.Errorf("thinking option = %s", got)
	}
	f.prompt(s.SessionId, sdk.TextBlock("one"))

	set := func(id, value string) (sdk.SetSessionConfigOptionResponse, error) {
		return f.conn.SetSessionConfigOption(f.ctx(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: s.SessionId, ConfigId: sdk.SessionConfigId(id), Value: sdk.SessionConfigValueId(value)}})
	}
	if r, err := set("model", "gpt-other"); err != nil || optionValue(r.ConfigOptions, "model") != "gpt-other" {
		t.Fatalf("set model: %+v, %v", r, err)
	}
	if _, err := set("thinking", "high"); err != nil {
		t.Fatal(err)
	}
	if _, err := set("mode", "plan"); err != nil {
		t.Fatal(err)
	}
	updates := f.updates()
	if lastMode(updates) != "plan" || lastOption(updates, "model") != "gpt-other" || lastOption(updates, "thinking") != "high" {
		t.Errorf("updates: mode %q, model %q, thinking %q", lastMode(updates), lastOption(updates, "model"), lastOption(updates, "thinking"))
	}
	if _, err := set("mode", "code"); err != nil {
		t.Fatal(err)
	}
	f.prompt(s.SessionId, sdk.TextBlock("two"))
	reqs := srv.Requests()
	if reqs[0]["model"] != "gpt-test" || reqs[1]["model"] != "gpt-other" || reqs[1]["reasoning_effort"] != "high" || reqs[0]["reasoning_effort"] != nil {
		t.Errorf("requests: model %v then %v, reasoning_effort %v then %v", reqs[0]["model"], reqs[1]["model"], reqs[0]["reasoning_effort"], reqs[1]["reasoning_effort"])
	}

	for _, bad := range []struct{ id, value, says string }{
		{"temperature", "1", `unknown config option 'temperature'`},
		{"model", "gpt-nonesuch", `has no value 'gpt-nonesuch': gpt-other, gpt-test`},
		{"thinking", "extreme", "has no value"},
	} {
		if _, err := set(bad.id, bad.value); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("set %s=%s: %v, want %q", bad.id, bad.value, err, bad.says)
		}
	}
	if _, err := f.conn.SetSessionConfigOption(f.ctx(), sdk.SetSessionConfigOptionRequest{Boolean: &sdk.SetSessionConfigOptionBoolean{
		SessionId: s.SessionId, ConfigId: "mode", Type: "boolean", Value: true}}); err == nil || !strings.Contains(err.Error(), "selects") {
		t.Errorf("a boolean: %v", err)
	}
	// session/set_mode is the same option, and says so.
	if _, err := f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "ask"}); err != nil {
		t.Fatal(err)
	}
	if u := f.updates(); lastMode(u) != "ask" || lastOption(u, "mode") != "ask" {
		t.Errorf("after set_mode: %q %q", lastMode(u), lastOption(u, "mode"))
	}
}
