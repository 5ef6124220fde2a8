package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Sub-agent limits.
const (
	maxConcurrentSubAgents = 4
	subAgentIterations     = 6
)

const delegateDescription = `Hand an independent sub-question (investigate, search, summarise) to a sub-agent with a fresh context.
It works with read-only tools and answers with a summary; several delegate calls in one answer run at the same time.
Give it a self-contained task: it does not see this conversation.`

type delegateParams struct {
	Task string `json:"task" jsonschema:"the sub-question, self-contained"`
}

// delegateTool runs sub-agents. It is read-only (its sub-agents only read),
// so the loop runs several calls of one turn concurrently; a semaphore bounds
// them. Cancelling the parent's context cancels the sub-agents.
type delegateTool struct {
	sub    *Agent
	schema json.RawMessage
	slots  chan struct{}
	count  atomic.Int64
}

func init() {
	tools.Present("delegate", tools.Presentation{Kind: tools.KindThink,
		Title: func(c tools.Call) string { return "Sub-agent: " + c.FirstLine("task", 80) }})
}

func (d *delegateTool) Name() string            { return "delegate" }
func (d *delegateTool) Description() string     { return delegateDescription }
func (d *delegateTool) Schema() json.RawMessage { return d.schema }
func (d *delegateTool) ReadOnly() bool          { return true }

func (d *delegateTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var p delegateParams
	if err := json.Unmarshal(args, &p); err != nil || strings.TrimSpace(p.Task) == "" {
		return tools.Errorf("delegate needs a task"), nil
	}
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		return tools.Result{}, ctx.Err()
	}
	defer func() { <-d.slots }()
	n := d.count.Add(1)
	sub := d.sub.scoped(fmt.Sprintf("sub-agent %d", n))
	var h History
	out, err := sub.Run(ctx, &h, "A sub-task from the main agent. Investigate with your read-only tools and answer with a concise summary of what you found.\n\nTask: "+p.Task)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Errorf("sub-agent %d did not finish: %v", n, err), nil
	}
	return tools.Result{Text: fmt.Sprintf("Sub-agent %d found:\n%s", n, out.Answer)}, nil
}

// WithSubAgents returns cfg with a delegate tool added: its sub-agents share
// cfg's provider and events (scoped "sub-agent N") and get only the read-only
// tools, and no delegate of their own.
func WithSubAgents(cfg Config) (Config, error) {
	if cfg.Tools == nil {
		return cfg, nil
	}
	subCfg := cfg.readOnly()
	subCfg.MaxIterations = subAgentIterations
	d := &delegateTool{sub: New(subCfg), schema: tools.SchemaOf[delegateParams](), slots: make(chan struct{}, maxConcurrentSubAgents)}
	reg, err := tools.NewRegistry(append(cfg.Tools.Tools(), d)...)
	if err != nil {
		return cfg, err
	}
	cfg.Tools = reg
	return cfg, nil
}
