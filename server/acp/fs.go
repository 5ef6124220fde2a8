package acp

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// clientReadTimeout bounds one fs/read_text_file; a client that does not
// answer leaves the read to disk.
const clientReadTimeout = 10 * time.Second

// clientFiles is the turn's view of the client's buffers, for a client that
// offers fs.readTextFile: Buffer asks the client (its unsaved text, the
// same guarantee as LSP overlays); Known answers from what it already holds
// — the files read this turn and the whole files the prompt embedded — so a
// search does not ask the editor about every file (tools.KnownOverlay).
// Paths reach it confined to the workspace. Safe for concurrent use.
type clientFiles struct {
	a   *Agent
	sid sdk.SessionId
	ctx context.Context // the turn's

	mu    sync.Mutex // guards known
	known map[string]string
}

// Buffer implements tools.Overlay. A client error (no such file, or any
// other) leaves the read to disk, which says whether the file exists.
func (c *clientFiles) Buffer(abs string) (string, int32, bool) {
	ctx, cancel := context.WithTimeout(c.ctx, clientReadTimeout)
	defer cancel()
	resp, err := c.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: c.sid, Path: abs})
	if err != nil {
		c.a.log.Debug("acp: fs/read_text_file failed; reading disk", "path", abs, "error", err)
		return "", 0, false
	}
	c.mu.Lock()
	c.known[abs] = resp.Content
	c.mu.Unlock()
	return resp.Content, 0, true
}

// OpenBuffers implements tools.BufferLister: the client's buffers this turn
// has at hand (read or embedded), so commands see their unsaved text.
func (c *clientFiles) OpenBuffers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.known))
}

// Known implements tools.KnownOverlay.
func (c *clientFiles) Known(abs string) (string, int32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	text, ok := c.known[abs]
	return text, 0, ok
}
