package main

import (
	"bytes"
	"context"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/server/agentrun/agentruntest"
)

// TestRunContract plays the run contract's scenarios through ask: the same
// outcome as the language server's and ACP's (agentruntest).
func TestRunContract(t *testing.T) {
	agentruntest.Play(t, agentruntest.CLI, askScenario)
}

// diffFile is a file a unified diff changes.
var diffFile = regexp.MustCompile(`(?m)^\+\+\+ b/(.+)$`)

func askScenario(t *testing.T, sc agentruntest.Scenario) agentruntest.Got {
	srv := llmtest.NewOpenAIServer(t, sc.Turns...)
	env := map[string]string{"AGENT_LSP_MODEL": "gpt-test", "OPENAI_BASE_URL": srv.URL + "/v1", "XDG_CONFIG_HOME": userConfig(t, sc.Config)}
	maps.Copy(env, sc.Env)
	args := []string{"ask", "--workspace", newWorkspace(t, agentruntest.Files)}
	if sc.Mode != "" {
		args = append(args, "--mode", sc.Mode)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if sc.CancelAt > 0 {
		go func() {
			agentruntest.WaitRequests(t, srv, sc.CancelAt)
			cancel()
		}()
	}
	var stdout, stderr bytes.Buffer
	env["XDG_STATE_HOME"] = t.TempDir()
	code := run(ctx, append(args, sc.Prompt), strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	got := agentruntest.Got{Answer: stdout.String() + stderr.String()}
	for _, m := range diffFile.FindAllStringSubmatch(stdout.String(), -1) {
		got.Offered = append(got.Offered, m[1])
	}
	if reqs := srv.Requests(); len(reqs) > 0 {
		got.Tools = agentruntest.OfferedTools(reqs[0])
	}
	switch {
	case code == exitOK:
		got.Ending = agentrun.Answered
	case strings.Contains(stderr.String(), "agent-lsp ask: cancelled"):
		got.Ending = agentrun.Cancelled
	case strings.Contains(stderr.String(), "agent-lsp: stopped"):
		got.Ending = agentrun.Stopped
	default:
		got.Ending = agentrun.Failed
	}
	return got
}
