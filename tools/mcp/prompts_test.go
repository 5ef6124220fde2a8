package mcp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func promptNames(ps []Prompt) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Server+":"+p.Name)
	}
	return out
}

func TestWarmOffersAUserServersPromptsWithoutARun(t *testing.T) {
	f := newFixture(t, nil, nil)
	cfgs := []ServerConfig{f.cfg}
	if ps := f.pool.Prompts(cfgs); len(ps) != 0 || len(f.starts()) != 0 {
		t.Fatalf("prompts %v before any start; starts %v", ps, f.starts())
	}
	f.pool.Warm(cfgs)
	f.waitChange("the warmed server never started", func() bool { return len(f.pool.Prompts(cfgs)) > 0 })
	ps := f.pool.Prompts(cfgs)
	if got := promptNames(ps); !slices.Equal(got, []string{"test:broken", "test:review"}) {
		t.Fatalf("prompts %q (the odd name must be left out)", got)
	}
	review := ps[1]
	if review.Description != "Review a file: Reviews one file." || len(review.Arguments) != 2 || !review.Arguments[0].Required || review.Arguments[1].Required {
		t.Fatalf("%+v", review)
	}
	ctx := context.Background()
	text, err := f.pool.GetPrompt(ctx, cfgs, "test", "review", map[string]string{"file": "main.go", "focus": "errors"})
	if want := "Review main.go for errors.\n\n(assistant) I will read it first.\n\n[an image (image/png, 3 bytes) — not shown]"; err != nil || text != want {
		t.Fatalf("%q, %v; want %q", text, err, want)
	}
	for _, c := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"review", nil, "prompt review needs file; it takes: file, focus"},
		{"review", map[string]string{"file": "a", "colour": "red"}, `prompt review takes no argument "colour"; it takes: file, focus`},
		{"broken", nil, "MCP server test, prompt broken: "},
		{"missing", nil, "MCP server test has no prompt missing now"},
	} {
		if _, err := f.pool.GetPrompt(ctx, cfgs, "test", c.name, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want %q", c.name, c.args, err, c.want)
		}
	}
	if _, err := f.pool.GetPrompt(ctx, cfgs, "other", "review", nil); !errors.Is(err, ErrNoPrompt) {
		t.Errorf("an unknown server: %v", err)
	}
}

func TestWarmLeavesTheEditorsAndTheProjectsServersToTheFirstRun(t *testing.T) {
	for _, origin := range []string{"editor", "project"} {
		f := newFixture(t, nil, func(c *ServerConfig) { c.Origin = origin })
		f.pool.Warm([]ServerConfig{f.cfg})
		if st := f.pool.Status([]ServerConfig{f.cfg})[0]; st.State != StateIdle || len(f.starts()) != 0 {
			t.Fatalf("%s: %+v, starts %v", origin, st, f.starts())
		}
	}
}

func TestPromptsListChangedRefreshesThePrompts(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.AllowedTools = []string{"grow"} })
	cfgs := []ServerConfig{f.cfg}
	ts, _ := f.tools(f.pool.Source(cfgs, SourceOptions{}))
	call(t, context.Background(), ts["mcp__test__grow"], `{}`)
	f.waitChange("no prompts/list_changed", func() bool { return slices.Contains(promptNames(f.pool.Prompts(cfgs)), "test:later") })
	if text, err := f.pool.GetPrompt(context.Background(), cfgs, "test", "later", nil); err != nil || text != "a later prompt" {
		t.Fatalf("%q %v", text, err)
	}
}

// TestAServerWithPromptsAloneIsReady: a server that declares prompts and
// no tools is asked for its prompts only; it is ready, offers them, and
// gives the runs no tool (listing tools it never declared failed it
// before).
func TestAServerWithPromptsAloneIsReady(t *testing.T) {
	f := newFixture(t, nil, func(c *ServerConfig) { c.Args = []string{"-prompts-only"} })
	cfgs := []ServerConfig{f.cfg}
	f.pool.Warm(cfgs)
	f.waitChange("the server never started", func() bool { return len(f.pool.Prompts(cfgs)) > 0 })
	if got := promptNames(f.pool.Prompts(cfgs)); !slices.Equal(got, []string{"test:broken", "test:review"}) {
		t.Fatalf("prompts %q", got)
	}
	st := f.pool.Status(cfgs)
	if len(st) != 1 || st[0].State != StateReady || st[0].Error != "" || len(st[0].Tools) != 0 {
		t.Fatalf("status %+v", st)
	}
	ts, notices := f.tools(f.pool.Source(cfgs, SourceOptions{}))
	if len(ts) != 0 || len(notices) != 1 || !strings.Contains(notices[0], "started: 0 tool(s)") {
		t.Fatalf("tools %v, notices %q", ts, notices)
	}
}
