package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/tools"
)

// displayable makes the text of an update shown, never obeyed
// (tools.Displayable): clients render it as Markdown, some in terminals,
// and a model's answer, a command's output or a file's text may carry
// escape sequences or bidi controls. Diffs are the files' content, which
// the user reviews as it is, and are left alone; so are a tool call's raw
// input (JSON, the call as the model made it) and locations (paths).
func displayable(u sdk.SessionUpdate) sdk.SessionUpdate {
	switch {
	case u.UserMessageChunk != nil: // replayed: the prompt may hold a file's text
		c := *u.UserMessageChunk
		c.Content = displayableBlock(c.Content)
		u.UserMessageChunk = &c
	case u.AgentMessageChunk != nil:
		c := *u.AgentMessageChunk
		c.Content = displayableBlock(c.Content)
		u.AgentMessageChunk = &c
	case u.AgentThoughtChunk != nil:
		c := *u.AgentThoughtChunk
		c.Content = displayableBlock(c.Content)
		u.AgentThoughtChunk = &c
	case u.ToolCall != nil:
		c := *u.ToolCall
		c.Title = tools.Displayable(c.Title)
		c.Content = displayableContent(c.Content)
		u.ToolCall = &c
	case u.ToolCallUpdate != nil:
		c := *u.ToolCallUpdate
		if c.Title != nil {
			c.Title = sdk.Ptr(tools.Displayable(*c.Title))
		}
		c.Content = displayableContent(c.Content)
		u.ToolCallUpdate = &c
	case u.Plan != nil: // the model's steps
		p := *u.Plan
		p.Entries = make([]sdk.PlanEntry, len(u.Plan.Entries))
		for i, e := range u.Plan.Entries {
			e.Content = tools.Displayable(e.Content)
			p.Entries[i] = e
		}
		u.Plan = &p
	}
	return u
}

// displayableCall is the tool call a permission request is about, with its
// title and text shown (as displayable does for a session update's).
func displayableCall(c sdk.ToolCallUpdate) sdk.ToolCallUpdate {
	if c.Title != nil {
		c.Title = sdk.Ptr(tools.Displayable(*c.Title))
	}
	c.Content = displayableContent(c.Content)
	return c
}

func displayableBlock(b sdk.ContentBlock) sdk.ContentBlock {
	if b.Text != nil && tools.DisplayableChanged(b.Text.Text) {
		t := *b.Text
		t.Text = tools.Displayable(t.Text)
		b.Text = &t
	}
	return b
}

func displayableContent(cs []sdk.ToolCallContent) []sdk.ToolCallContent {
	if len(cs) == 0 {
		return cs
	}
	out := make([]sdk.ToolCallContent, len(cs))
	for i, c := range cs {
		if c.Content != nil {
			cc := *c.Content
			cc.Content = displayableBlock(cc.Content)
			c.Content = &cc
		}
		out[i] = c
	}
	return out
}
