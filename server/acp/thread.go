package acp

import (
	"crypto/rand"
	"fmt"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/server/agentrun"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Thread housekeeping: the title once the first turn says what the thread
// is about (session_info_update), and message ids on the chunks, one per
// message, as the schema asks (UUIDs; a new id starts a new message).

// newMessageID is a random (version 4) UUID.
func newMessageID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// messageIDs are the ids of the message and the thought being streamed;
// a model call starts new ones.
type messageIDs struct{ message, thought string }

// stamp sets u's message id, starting one when none is current. t.mu held.
func (t *turn) stamp(u sdk.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil:
		if t.ids.message == "" {
			t.ids.message = newMessageID()
		}
		u.AgentMessageChunk.MessageId = sdk.Ptr(t.ids.message)
	case u.AgentThoughtChunk != nil:
		if t.ids.thought == "" {
			t.ids.thought = newMessageID()
		}
		u.AgentThoughtChunk.MessageId = sdk.Ptr(t.ids.thought)
	}
}

// nextMessage makes the next chunks a new message (a new model call).
func (t *turn) nextMessage() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ids = messageIDs{}
}

// titled sends the thread's title after its first turn: the first line of
// the user's words (a newcomer's thread list shows what each is about).
func (t *turn) titled(prompt string) {
	title := tools.FirstLine(agentrun.UserWords(prompt), 80)
	if title == "" {
		return
	}
	now := time.Now().UTC().Format(time.RFC3339)
	t.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: &title, UpdatedAt: &now}})
}

// withMessageID gives a replayed message its id: each is one whole message.
func withMessageID(u sdk.SessionUpdate) sdk.SessionUpdate {
	id := sdk.Ptr(newMessageID())
	switch {
	case u.UserMessageChunk != nil:
		u.UserMessageChunk.MessageId = id
	case u.AgentMessageChunk != nil:
		u.AgentMessageChunk.MessageId = id
	}
	return u
}
