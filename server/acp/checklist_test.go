package acp_test

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/llm/llmtest"
)

func plans(updates []sdk.SessionUpdate) [][]sdk.PlanEntry {
	var out [][]sdk.PlanEntry
	for _, u := range updates {
		if u.Plan != nil {
			out = append(out, u.Plan.Entries)
		}
	}
	return out
}

// The model's checklist (update_plan) is the client's live plan in every
// mode, Ask's included, and not a tool call; a malformed one shows
// nothing and the model is told why.
func TestChecklistIsThePlanInEveryMode(t *testing.T) {
	for _, mode := range []sdk.SessionModeId{"code", "ask"} {
		t.Run(string(mode), func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "update_plan", Args: `{"steps":[{"step":"Read a.txt","status":"in_progress"},{"step":"Answer","status":"pending"}]}`}}},
				llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}, {Name: "update_plan", Args: `{"steps":[{"step":"Read a.txt","status":"done"}]}`}}},
				llmtest.Turn{Calls: []llmtest.Call{{Name: "update_plan", Args: `{"steps":[{"step":"Read a.txt","status":"completed"},{"step":"Answer","status":"in_progress"}]}`}}},
				llmtest.Turn{Text: "It says a."},
			)
			f := newFixture(t, map[string]string{"a.txt": "a\n"}, srv, fixtureOptions{})
			s := f.newSession()
			if _, err := f.conn.SetSessionMode(f.ctx(), sdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: mode}); err != nil {
				t.Fatal(err)
			}
			f.prompt(s.SessionId, sdk.TextBlock("what does a.txt say?"))
			updates := f.updates()
			got := plans(updates)
			if len(got) != 2 || len(got[0]) != 2 || got[0][0].Content != "Read a.txt" || got[0][0].Status != sdk.PlanEntryStatusInProgress ||
				got[1][0].Status != sdk.PlanEntryStatusCompleted || got[1][1].Status != sdk.PlanEntryStatusInProgress {
				t.Errorf("plans = %s", toJSON(got))
			}
			for _, c := range toolCalls(updates) {
				if strings.Contains(c.Title, "update_plan") {
					t.Errorf("update_plan shown as a tool call: %+v", c)
				}
			}
			if body := toJSON(srv.Requests()[2]); !strings.Contains(body, `status \"done\" is not pending, in_progress or completed`) {
				t.Errorf("the model was not told its checklist was malformed")
			}
		})
	}
}
