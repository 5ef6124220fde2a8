package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// ToolSource offers tools found while a run goes on: an MCP server's, which
// start on first use and may change their list (tools/mcp.Source).
type ToolSource interface {
	// Tools returns the tools available now — the same values as long as
	// nothing changed — starting what must be started within ctx, and
	// notices for the trace (a server started, failed, left something out).
	Tools(ctx context.Context) ([]tools.Tool, []string)
}

// toolset is what a loop offers the model at one moment: the agent's own
// tools, then the source's.
type toolset struct {
	reg   *tools.Registry
	specs []llm.ToolSpec
	extra []tools.Tool // the source's, as it last returned them
}

func specsOf(reg *tools.Registry) []llm.ToolSpec {
	if reg == nil {
		return nil
	}
	var specs []llm.ToolSpec
	for _, t := range reg.Tools() {
		specs = append(specs, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()})
	}
	return specs
}

// refresh asks the source for its tools before a model call and returns ts
// itself while they are the same, or the new toolset. A source's tool named
// like one of the agent's own is left out (and said so): a server never
// replaces a built-in tool.
func (a *Agent) refresh(ctx context.Context, ts *toolset, notice func(string)) *toolset {
	if a.cfg.Source == nil {
		return ts
	}
	extra, notices := a.cfg.Source.Tools(ctx)
	for _, n := range notices {
		notice(n)
	}
	if slices.Equal(extra, ts.extra) {
		return ts
	}
	var keep []tools.Tool
	for _, t := range extra {
		if _, builtin := a.cfg.Tools.Lookup(t.Name()); builtin {
			notice(fmt.Sprintf("tool %s left out: a built-in tool has that name", t.Name()))
			continue
		}
		keep = append(keep, t)
	}
	reg, err := a.cfg.Tools.With(keep...)
	if err != nil {
		notice(fmt.Sprintf("tools left out: %v", err))
		return &toolset{reg: a.cfg.Tools, specs: a.specs, extra: extra}
	}
	return &toolset{reg: reg, specs: specsOf(reg), extra: extra}
}

// readOnlySource offers only the read-only tools of a source: a sub-agent's
// share, or a read-only agent's. Their calls still ask for approval.
type readOnlySource struct{ src ToolSource }

func (r readOnlySource) Tools(ctx context.Context) ([]tools.Tool, []string) {
	all, notices := r.src.Tools(ctx)
	var ro []tools.Tool
	for _, t := range all {
		if t.ReadOnly() {
			ro = append(ro, t)
		}
	}
	return ro, notices
}

// readOnly returns cfg with only its read-only tools, its source's
// included.
func (cfg Config) readOnly() Config {
	cfg.Tools = cfg.Tools.Subset(func(t tools.Tool) bool { return t.ReadOnly() })
	if cfg.Source != nil {
		cfg.Source = readOnlySource{cfg.Source}
	}
	return cfg
}
