package server_test

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestBaseURLCredentialsNeverShow: a base URL with a user, a password and
// a key in its query reaches the editor redacted — in agent.status's
// settings, in the failed run's error, in the log and the messages — while
// the host and path still say which server it is.
func TestBaseURLCredentialsNeverShow(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the provider's error names the URL it asked
	base := "http://TOKENUSER:PASSWORD@" + addr + "/v1?api_key=QUERYKEY"
	f := newFixture(t, nil, nil, map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": base, "OPENAI_API_KEY": "k"})
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	var res askResult
	askErr := f.editor.Command(server.CommandAsk, map[string]any{"prompt": "hi", "wait": true}, &res)
	var status struct {
		Settings string `json:"settings"`
		Runs     []struct {
			Error string `json:"error"`
		} `json:"runs"`
	}
	var raw json.RawMessage
	if err := f.editor.Command(server.CommandStatus, nil, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &status); err != nil {
		t.Fatal(err)
	}
	if want := "base_url=http://***@" + addr + "/v1?api_key=***"; !strings.Contains(status.Settings, want) {
		t.Errorf("agent.status settings %q, want %q in them", status.Settings, want)
	}
	if len(status.Runs) != 1 || !strings.Contains(status.Runs[0].Error, "***@"+addr) {
		t.Errorf("the run's error does not name the server, redacted: %+v (ask: %v)", status.Runs, askErr)
	}
	shown := []string{string(raw), strings.Join(f.editor.Logs(), "\n"), strings.Join(f.editor.Messages(), "\n"), res.Answer}
	if askErr != nil {
		shown = append(shown, askErr.Error())
	}
	for _, text := range shown {
		for _, secret := range []string{"TOKENUSER", "PASSWORD", "QUERYKEY"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s shows in:\n%s", secret, text)
			}
		}
	}
}
