package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// The sign-in methods follow what the client runs: the terminal set-up
// (`agent-lsp setup`) for a client with auth.terminal, with the command
// line in _meta for one that declares Zed's and the ACP Registry's
// _meta["terminal-auth"]; the environment's keys for every client.
func TestInitializeListsTheSignInMethods(t *testing.T) {
	for _, tc := range []struct {
		name             string
		caps             sdk.ClientCapabilities
		terminal, legacy bool
	}{
		{"no terminal", sdk.ClientCapabilities{}, false, false},
		{"auth.terminal", sdk.ClientCapabilities{Auth: sdk.AuthCapabilities{Terminal: true}}, true, false},
		{"_meta terminal-auth", sdk.ClientCapabilities{Meta: map[string]any{"terminal-auth": true}}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil, nil, fixtureOptions{caps: &tc.caps})
			resp, err := f.conn.Initialize(f.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: tc.caps})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			var setup *sdk.AuthMethodTerminalInline
			vars := map[string]string{}
			for _, m := range resp.AuthMethods {
				switch {
				case m.Terminal != nil:
					ids, setup = append(ids, m.Terminal.Id), m.Terminal
				case m.EnvVar != nil:
					ids = append(ids, m.EnvVar.Id)
					vars[m.EnvVar.Id] = m.EnvVar.Vars[0].Name
				}
			}
			want := []string{"openai-api-key", "gemini-api-key"}
			if tc.terminal {
				want = append([]string{"agent-lsp-setup"}, want...)
			}
			if strings.Join(ids, " ") != strings.Join(want, " ") || vars["openai-api-key"] != "OPENAI_API_KEY" || vars["gemini-api-key"] != "GEMINI_API_KEY" {
				t.Fatalf("authMethods = %s", toJSON(resp.AuthMethods))
			}
			if tc.terminal && strings.Join(setup.Args, " ") != "setup" {
				t.Errorf("the set-up's args = %q, want [setup]", setup.Args)
			}
			if tc.terminal {
				meta, _ := setup.Meta["terminal-auth"].(map[string]any)
				if args, _ := meta["args"].([]any); (meta != nil) != tc.legacy || tc.legacy && (len(args) != 1 || args[0] != "setup" || meta["command"] == "") {
					t.Errorf("the set-up's _meta = %v, want a command line only for _meta terminal-auth", setup.Meta)
				}
			}
		})
	}
}

// With no model to use, session/new is auth_required, saying what is
// missing; once the user's config names one (as agent-lsp setup writes
// it), the next session/new on the same connection opens and its turn
// reaches the model.
func TestNoModelAsksForASignIn(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.Turn{Text: "Signed in."})
	f := newFixture(t, nil, nil, fixtureOptions{})
	_, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: f.root, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(re.Message, "agent-lsp setup") {
		t.Fatalf("session/new without a model: %v, want auth_required naming agent-lsp setup", err)
	}
	if _, err := f.conn.Authenticate(f.ctx(), sdk.AuthenticateRequest{MethodId: "agent-lsp-setup"}); !errors.As(err, &re) || re.Code != -32000 {
		t.Errorf("authenticate before the set-up: %v, want auth_required", err)
	}
	userConfig := filepath.Join(f.env["XDG_CONFIG_HOME"], "agent-lsp", "config.toml")
	os.MkdirAll(filepath.Dir(userConfig), 0o700)
	if err := os.WriteFile(userConfig, []byte("model = \"gpt-test\"\nbase_url = \""+srv.URL+"/v1\"\n[keys]\nopenai = \"sk-file\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.conn.Authenticate(f.ctx(), sdk.AuthenticateRequest{MethodId: "agent-lsp-setup"}); err != nil {
		t.Errorf("authenticate after the set-up: %v", err)
	}
	s := f.newSession()
	if resp := f.prompt(s.SessionId, sdk.TextBlock("hello")); resp.StopReason != sdk.StopReasonEndTurn || !strings.Contains(agentText(f.updates()), "Signed in.") {
		t.Errorf("the turn after the sign-in: %s, answer %q", resp.StopReason, agentText(f.updates()))
	}
	if keys := srv.Keys(); len(keys) != 1 || keys[0] != "sk-file" {
		t.Errorf("the model was asked with keys %q, want the one in the user's file", keys)
	}
}

// A key's method is done when its variable is set in agent-lsp's
// environment, else auth_required names it; an unknown method is invalid.
func TestAuthenticateAKeyMethod(t *testing.T) {
	f := newFixture(t, nil, nil, fixtureOptions{env: map[string]string{"GOOGLE_API_KEY": "g"}})
	if _, err := f.conn.Authenticate(f.ctx(), sdk.AuthenticateRequest{MethodId: "gemini-api-key"}); err != nil {
		t.Errorf("gemini-api-key with GOOGLE_API_KEY set: %v", err)
	}
	var re *sdk.RequestError
	if _, err := f.conn.Authenticate(f.ctx(), sdk.AuthenticateRequest{MethodId: "openai-api-key"}); !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(re.Message, "OPENAI_API_KEY") {
		t.Errorf("openai-api-key without its variable: %v", err)
	}
	if _, err := f.conn.Authenticate(f.ctx(), sdk.AuthenticateRequest{MethodId: "password"}); !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("an unknown method: %v", err)
	}
}

// A prompt whose model cannot be reached for want of a sign-in (here the
// provider chain says a key is missing) is auth_required too, not a
// generic failure.
func TestAPromptWithoutAUsableModelAsksForASignIn(t *testing.T) {
	f := newFixture(t, nil, nil, fixtureOptions{
		env: map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_API_KEY": "sk-expired"},
		provider: func(context.Context, config.Settings) (llm.Provider, error) {
			return nil, config.SignInError("no key for the fallback's provider: set GROQ_API_KEY, or run `agent-lsp setup`")
		},
	})
	s := f.newSession()
	_, err := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(re.Message, "GROQ_API_KEY") {
		t.Errorf("session/prompt: %v, want auth_required saying what is missing", err)
	}
}
