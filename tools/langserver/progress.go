package langserver

import (
	"context"
	"encoding/json"
	"time"
)

// maxProgressWait bounds how long a question whose answer needs the whole
// project (references) waits for the server's work under way (clangd's
// background index, gopls loading packages): past it, the server answers
// from what it has.
const maxProgressWait = 5 * time.Second

// progressCreated records a token the server made for work it is about
// to begin (clangd makes its index's before it says it began).
func (c *Client) progressCreated(raw json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.working) < maxDiagnosticsPerFile {
		c.working[string(p.Token)] = true
	}
}

// progress records the server's $/progress: begun work under way, ended
// work gone.
func (c *Client) progress(raw json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind string `json:"kind"`
		} `json:"value"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	token := string(p.Token)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch p.Value.Kind {
	case "begin":
		if len(c.working) < maxDiagnosticsPerFile {
			c.working[token] = true
		}
	case "end":
		if c.working[token] {
			delete(c.working, token)
			close(c.changed)
			c.changed = make(chan struct{})
		}
	}
}

// Settle waits, within maxProgressWait, until the server has no work
// under way that it reported: an index being built answers references
// with part of the project.
func (c *Client) Settle(ctx context.Context) {
	deadline := time.NewTimer(maxProgressWait)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		busy, changed := len(c.working) > 0, c.changed
		c.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-c.exited:
			return
		}
	}
}
