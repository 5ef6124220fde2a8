package langserver

import (
	"context"
	"encoding/json"
	"time"
)

// maxProgressWait bounds how long a question whose answer needs the whole
// project (references) waits for the server's work under way (clangd's
// background index, gopls loading packages): past it, the server answers
// from what it has, and what depends on the whole project is not known.
const maxProgressWait = 5 * time.Second

// maxUnbegunWait is how long a progress token the server made but has not
// begun counts as work under way (clangd makes its index's token first):
// one never begun would otherwise hold every later wait to its bound.
const maxUnbegunWait = time.Second

// progressWait is how long Settle waits: maxProgressWait, or the
// client's request bound where that is shorter.
func (c *Client) progressWait() time.Duration { return min(maxProgressWait, c.timeout) }

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
		c.working[string(p.Token)] = time.Now()
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
		if _, made := c.working[token]; made || len(c.working) < maxDiagnosticsPerFile {
			c.working[token] = time.Now()
			c.begun[token] = true
		}
	case "end":
		if _, ok := c.working[token]; ok {
			delete(c.working, token)
			delete(c.begun, token)
			c.notifyLocked()
		}
	}
}

// busyLocked says whether the server has work under way: begun and not
// ended, or made within maxUnbegunWait and not begun yet. c.mu is held.
func (c *Client) busyLocked(now time.Time) (busy bool, recheck time.Duration) {
	for token, at := range c.working {
		if c.begun[token] {
			return true, 0
		}
		if left := maxUnbegunWait - now.Sub(at); left > 0 {
			busy = true
			recheck = max(recheck, left)
		}
	}
	return busy, recheck
}

// Settle waits, within maxProgressWait, until the server has no work
// under way that it reported: an index being built answers references
// with part of the project. It says whether the server settled; false
// when it is still busy past the wait (or ctx ended, or it exited).
func (c *Client) Settle(ctx context.Context) bool {
	deadline := time.NewTimer(c.progressWait())
	defer deadline.Stop()
	for {
		c.mu.Lock()
		busy, recheck := c.busyLocked(time.Now())
		changed := c.changed
		c.mu.Unlock()
		if !busy {
			return true
		}
		var again <-chan time.Time
		if recheck > 0 {
			again = time.After(recheck)
		}
		select {
		case <-changed:
		case <-again:
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-c.exited:
			return false
		}
	}
}
