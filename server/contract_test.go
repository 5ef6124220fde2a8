package server_test

import (
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
	"github.com/agent-lsp/agent-lsp/server/servertest"
)

// TestRunContract plays the run contract's scenarios through agent.ask:
// the same outcome as the CLI's and ACP's (agentruntest).
func TestRunContract(t *testing.T) {
	agentruntest.Play(t, agentruntest.LSP, lspScenario)
}

// diffFiles are the files a unified diff changes.
var diffFiles = regexp.MustCompile(`(?m)^\+\+\+ b/(.+)$`)

func lspScenario(t *testing.T, sc agentruntest.Scenario) agentruntest.Got {
	srv := llmtest.NewOpenAIServer(t, sc.Turns...)
	env := map[string]string{}
	maps.Copy(env, sc.Env)
	f := newFixture(t, agentruntest.Files, srv, env)
	agentruntest.WriteUserConfig(t, env["XDG_CONFIG_HOME"], sc.Config)
	f.editor.Initialize(f.root, servertest.Caps{}, nil)
	args := map[string]any{"prompt": sc.Prompt, "wait": true}
	if sc.Mode != "" {
		args["mode"] = sc.Mode
	}
	if sc.CancelAt > 0 {
		go func() {
			agentruntest.WaitRequests(t, srv, sc.CancelAt)
			f.editor.Command(server.CommandCancel, map[string]any{}, nil)
		}()
	}
	res := f.ask(args)
	got := agentruntest.Got{Answer: res.Answer, Tools: agentruntest.OfferedTools(srv.Requests()[0])}
	for _, m := range diffFiles.FindAllStringSubmatch(res.Diff, -1) {
		got.Offered = append(got.Offered, m[1])
	}
	switch {
	case res.State == "cancelled":
		got.Ending = agentrun.Cancelled
	case res.State == "failed":
		got.Ending = agentrun.Failed
	case strings.Contains(res.Answer, "agent-lsp: stopped"):
		got.Ending = agentrun.Stopped
	case res.State == "completed":
		got.Ending = agentrun.Answered
	}
	if sc.Second == "" {
		return got
	}
	if err := f.editor.Command(server.CommandDiscardProposal, map[string]any{"id": res.ProposalID}, nil); err != nil {
		t.Fatalf("discarding %s: %v", res.ProposalID, err)
	}
	before := len(srv.Requests())
	second := f.ask(map[string]any{"prompt": sc.Second, "wait": true})
	got.Answer, got.Offered = second.Answer, nil
	for _, m := range diffFiles.FindAllStringSubmatch(second.Diff, -1) {
		got.Offered = append(got.Offered, m[1])
	}
	got.Second = llmtest.LastUserText(srv.Requests()[before])
	return got
}
