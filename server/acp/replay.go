package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
)

// What the loop itself says to the model as the user: not the user's
// words, so a replay leaves them out (agent/agent.go writes them).
const (
	// formatFeedback follows an answer the loop could not read (a tool
	// protocol's malformed answer); the model answers again.
	formatFeedback = "Your last answer could not be used: "
	// continuation follows an answer cut off by the token limit: it is
	// the beginning of the answer, and the next one goes on from it.
	continuation = "Your reply was cut off by the output token limit."
)

var loopMessages = []string{formatFeedback, continuation}

// replay sends a loaded session's history as updates: the user's messages,
// the agent's answers, and each tool call with its result. Edits show as
// their results: the text they replaced is not stored. An answer the loop
// could not read is left out, as the turn left it out: the model's next
// answer is the one the user was shown.
func (a *Agent) replay(ctx context.Context, s *session) error {
	msgs := s.historyRef().Messages()
	results := map[string]llm.ToolResult{}
	for _, m := range msgs {
		for _, r := range m.ToolResults {
			results[r.CallID] = r
		}
	}
	send := func(u sdk.SessionUpdate) error {
		return a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: s.id, Update: displayable(u)})
	}
	n := 0
	for i, m := range msgs {
		var err error
		switch m.Role {
		case llm.RoleUser:
			if !isLoopMessage(m.Text) && strings.TrimSpace(m.Text) != "" {
				err = send(withMessageID(sdk.UpdateUserMessageText(agentrun.UserWords(m.Text))))
			}
		case llm.RoleAssistant:
			if rejected(msgs, i) {
				continue
			}
			if strings.TrimSpace(m.Text) != "" {
				err = send(withMessageID(sdk.UpdateAgentMessageText(m.Text)))
			}
			for _, c := range m.ToolCalls {
				if err != nil {
					break
				}
				if c.Name == agent.PlanToolName {
					continue // the checklist was live; the turns show what was done
				}
				n++
				err = send(replayedCall(fmt.Sprintf("load-%d", n), c, results[c.ID], s))
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// rejected says whether msgs[i] is an answer the loop could not read: the
// loop's feedback follows it.
func rejected(msgs []llm.Message, i int) bool {
	return i+1 < len(msgs) && msgs[i+1].Role == llm.RoleUser && strings.HasPrefix(msgs[i+1].Text, formatFeedback)
}

func isLoopMessage(text string) bool {
	for _, p := range loopMessages {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// replayedCall is one stored tool call, ended as it ended.
func replayedCall(id string, c llm.ToolCall, r llm.ToolResult, s *session) sdk.SessionUpdate {
	title, kind, locs := describeCall(c, s.view)
	status := sdk.ToolCallStatusCompleted
	if r.IsError {
		status = sdk.ToolCallStatusFailed
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(kind), sdk.WithStartStatus(status), sdk.WithStartLocations(locs), sdk.WithStartRawInput(rawArgs(c.Args))}
	if r.Content != "" {
		opts = append(opts, sdk.WithStartContent([]sdk.ToolCallContent{textContent(resultText(c.Name, r))}))
	}
	return sdk.StartToolCall(sdk.ToolCallId(id), title, opts...)
}
