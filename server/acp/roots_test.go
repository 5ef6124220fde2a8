package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

// TestAdditionalDirectoriesAreRoots: session/new's cwd and
// additionalDirectories are the roots of the session's view, cwd the one
// turns start in; reads, commands and writes reach both, by the root's
// name first.
func TestAdditionalDirectoriesAreRoots(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t,
		llmtest.Turn{Calls: []llmtest.Call{
			{Name: "read_file", Args: `{"path":"web/app.ts"}`},
			{Name: "execute_command", Args: `{"command":"cat marker.txt"}`},
			{Name: "execute_command", Args: `{"command":"cat marker.txt","cwd":"web"}`},
		}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"web/app.ts","old_string":"serve","new_string":"listen"}`}}},
		llmtest.Turn{Text: "Renamed it in web."},
	)
	f := newFixture(t, map[string]string{
		"api/marker.txt": "the api folder\n", "web/marker.txt": "the web folder\n", "web/app.ts": "export const app = serve();\n",
	}, srv, fixtureOptions{})
	init, err := f.conn.Initialize(f.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}})
	if err != nil || init.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
		t.Fatalf("additionalDirectories not offered: %+v %v", init.AgentCapabilities.SessionCapabilities, err)
	}
	if _, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: f.path("api"), AdditionalDirectories: []string{"web"}, McpServers: []sdk.McpServer{}}); err == nil || !strings.Contains(err.Error(), "must be an absolute path") {
		t.Errorf("a relative additional directory: %v", err)
	}
	s, err := f.conn.NewSession(f.ctx(), sdk.NewSessionRequest{Cwd: f.path("api"), AdditionalDirectories: []string{f.path("web")}, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp := f.prompt(s.SessionId, sdk.TextBlock("rename serve"), sdk.ResourceLinkBlock("app.ts", "file://"+f.path("web/app.ts"))); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stopReason = %s", resp.StopReason)
	}
	if task := llmtest.FirstUserText(srv.Requests()[0]); !strings.Contains(task, "`web/app.ts` (read it with read_file)") {
		t.Errorf("the attached file is not named by its root: %q", task)
	}
	system := srv.Requests()[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(system, "- api/ is "+f.path("api")+" (this request's root)") || !strings.Contains(system, "- web/ is "+f.path("web")) {
		t.Errorf("the system prompt does not name the roots:\n%s", system)
	}
	updates, _, reads, writes := f.editor.snapshot()
	if len(reads) == 0 || reads[0] != f.path("web/app.ts") {
		t.Errorf("fs/read_text_file calls = %v", reads)
	}
	calls := toolCalls(updates)
	read := findCall(calls, sdk.ToolKindRead, "Read web/app.ts")
	if read == nil || len(read.Locations) != 1 || read.Locations[0].Path != f.path("web/app.ts") || !strings.Contains(contentText(read), "serve()") {
		t.Fatalf("read call = %+v", read)
	}
	var outputs []string
	for _, c := range calls {
		if c.Kind == sdk.ToolKindExecute {
			outputs = append(outputs, contentText(c))
		}
	}
	if len(outputs) != 2 || !strings.Contains(outputs[0], "the api folder") || !strings.Contains(outputs[1], "the web folder") {
		t.Errorf("commands ran in %q; want api's by default, web's with cwd", outputs)
	}
	if got := writes[f.path("web/app.ts")]; got != "export const app = listen();\n" {
		t.Errorf("writes = %q", writes)
	}
	if got := f.disk("web/app.ts"); got != "export const app = serve();\n" {
		t.Errorf("disk changed to %q: the client writes, not us", got)
	}
}
