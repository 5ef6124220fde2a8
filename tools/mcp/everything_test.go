package mcp

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools/mcp/mcptest"
)

// TestServerEverything talks to a server no one here wrote: the reference
// @modelcontextprotocol/server-everything (TypeScript SDK), over stdio.
func TestServerEverything(t *testing.T) {
	node, args := mcptest.Everything(t)
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "OPENAI_API_KEY": "sk-must-not-leak"}
	f := newFixture(t, env, func(c *ServerConfig) {
		c.Name, c.Command, c.Args, c.Env = "everything", node, args, nil
		c.AllowedTools = []string{"echo", "get-sum", "get-tiny-image", "get-env", "get-structured-content"}
	})
	ts, notices := f.tools(f.pool.Source([]ServerConfig{f.cfg}, SourceOptions{}))
	if len(notices) != 1 || !strings.Contains(notices[0], "MCP server everything (stdio) started") {
		t.Fatalf("%q", notices)
	}
	for _, name := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image"} {
		if ts[name] == nil || !ts[name].ReadOnly() {
			t.Fatalf("%s missing or not read-only: %v", name, ts)
		}
	}
	ctx := context.Background()
	for _, c := range []struct{ tool, args, want string }{
		{"mcp__everything__echo", `{"message": "hi there"}`, "Echo: hi there"},
		{"mcp__everything__get-sum", `{"a": 2, "b": 40}`, "The sum of 2 and 40 is 42."},
		{"mcp__everything__get-tiny-image", `{}`, "[an image (image/png, "},
		{"mcp__everything__get-structured-content", `{"location": "Chicago"}`, `"temperature"`},
	} {
		if res := call(t, ctx, ts[c.tool], c.args); res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s: %+v, want %q", c.tool, res, c.want)
		}
	}
	if res := call(t, ctx, ts["mcp__everything__get-sum"], `{"a": "two"}`); !res.IsError || !strings.Contains(res.Text, "invalid arguments") {
		t.Errorf("bad arguments were not caught: %+v", res)
	}
	if res := call(t, ctx, ts["mcp__everything__get-env"], `{}`); strings.Contains(res.Text, "sk-must-not-leak") || !strings.Contains(res.Text, `"PATH"`) {
		t.Errorf("the server's environment: %s", res.Text)
	}
}

// TestServerEverythingPrompts lists and gets the reference server's
// prompts, whose arguments its SDK declares from a schema.
func TestServerEverythingPrompts(t *testing.T) {
	node, args := mcptest.Everything(t)
	f := newFixture(t, map[string]string{"PATH": os.Getenv("PATH")}, func(c *ServerConfig) {
		c.Name, c.Command, c.Args, c.Env = "everything", node, args, nil
	})
	cfgs := []ServerConfig{f.cfg}
	f.pool.Warm(cfgs)
	f.waitChange("server-everything never started", func() bool { return len(f.pool.Prompts(cfgs)) > 0 })
	names := promptNames(f.pool.Prompts(cfgs))
	if !slices.Contains(names, "everything:simple-prompt") || !slices.Contains(names, "everything:args-prompt") {
		t.Fatalf("prompts %q", names)
	}
	ctx := context.Background()
	if text, err := f.pool.GetPrompt(ctx, cfgs, "everything", "args-prompt", map[string]string{"city": "Kyoto"}); err != nil || text != "What's weather in Kyoto?" {
		t.Fatalf("%q %v", text, err)
	}
	if _, err := f.pool.GetPrompt(ctx, cfgs, "everything", "args-prompt", nil); err == nil || !strings.Contains(err.Error(), "needs city") {
		t.Fatalf("a required argument left out: %v", err)
	}
}
