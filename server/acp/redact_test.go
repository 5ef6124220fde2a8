package acp_test

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// A provider that cannot be reached at a base URL with credentials fails
// the turn; what the client is sent names the server without them.
func TestBaseURLCredentialsNeverReachTheClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: the provider's error names the URL it asked
	f := newFixture(t, nil, nil, fixtureOptions{env: map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_API_KEY": "k",
		"OPENAI_BASE_URL": "http://TOKENUSER:PASSWORD@" + addr + "/v1?api_key=QUERYKEY"}})
	s := f.newSession()
	_, promptErr := f.conn.Prompt(f.ctx(), sdk.PromptRequest{SessionId: s.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	updates, _, _, _ := f.editor.snapshot()
	sent, err := json.Marshal(updates)
	if err != nil {
		t.Fatal(err)
	}
	shown := string(sent)
	if promptErr != nil {
		shown += "\n" + promptErr.Error()
	}
	if !strings.Contains(shown, "***@"+addr) {
		t.Errorf("the failure does not name the server, redacted:\n%s", shown)
	}
	for _, secret := range []string{"TOKENUSER", "PASSWORD", "QUERYKEY"} {
		if strings.Contains(shown, secret) {
			t.Errorf("%s reaches the client:\n%s", secret, shown)
		}
	}
}
