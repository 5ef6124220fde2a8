package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
)

func TestPlanTool(t *testing.T) {
	tool := agent.NewPlanTool()
	if !tool.ReadOnly() || tool.Name() != "update_plan" {
		t.Fatalf("%s read-only %v", tool.Name(), tool.ReadOnly())
	}
	r, err := tool.Execute(context.Background(), json.RawMessage(`{"steps":[{"step":"a","status":"completed"},{"step":"b","status":"pending"}]}`))
	if err != nil || r.IsError || r.Text != "Plan updated: 1 of 2 steps done." {
		t.Errorf("%+v %v", r, err)
	}
	for args, says := range map[string]string{
		`{"steps":[]}`: "steps is empty",
		`{"steps":[{"step":" ","status":"pending"}]}`: "step 1 has no text",
		`{"steps":[{"step":"a","status":"doing"}]}`:   `status "doing" is not`,
		`[1]`: "invalid arguments",
	} {
		r, err := tool.Execute(context.Background(), json.RawMessage(args))
		if err != nil || !r.IsError || !strings.Contains(r.Text, says) {
			t.Errorf("%s: %+v %v, want %q", args, r, err, says)
		}
	}
}
