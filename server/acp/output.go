package acp

import (
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/llm"
	"github.com/agent-lsp/agent-lsp/tools"
)

// A command's output shows while it runs, for display only: the command
// runs in our sandbox as always, and its result is what the model gets.
// Output is coalesced (at most one update per outputInterval per command)
// and capped (the latest outputTail bytes as content, at most outputDelta
// bytes per update in the terminal form), so a command that prints 10 MB
// sends some kilobytes a second, never 10 MB of JSON-RPC. The caps keep an
// update under a millisecond: the SDK encodes a content block several
// times over (BenchmarkStreamedOutput).
//
// Two forms, as claude-agent-acp and codex-acp send them: where the client
// declares _meta.terminal_output (Zed), the tool call holds a display-only
// terminal and each update carries the new output in
// _meta.terminal_output, the exit in _meta.terminal_exit; elsewhere each
// update's content is the output so far (its tail), in a code block.
const (
	outputInterval = 200 * time.Millisecond
	outputTail     = 4 << 10
	outputDelta    = 4 << 10
)

// liveOutput is one running command's output not yet shown.
type liveOutput struct {
	t        *turn
	id       sdk.ToolCallId
	terminal bool // the terminal form

	mu      sync.Mutex // guards the fields below
	pending []byte     // terminal form: output since the last update (its tail past outputDelta)
	skipped int        // terminal form: bytes of pending left out
	tail    []byte     // content form: the latest outputTail bytes
	total   int        // bytes printed
	fresh   bool       // output came since the last update
	sent    time.Time  // the last update
	timer   *time.Timer
	timerOf int // which timer may send: one stopped too late finds another here
	ended   bool
}

// terminalForm says whether the client shows a display-only terminal.
func terminalForm(caps sdk.ClientCapabilities) bool {
	on, _ := caps.Meta["terminal_output"].(bool)
	return on
}

// terminalStart is the start of a command's tool call in the terminal form.
func terminalStart(u sdk.SessionUpdate, id sdk.ToolCallId, cwd string) sdk.SessionUpdate {
	u.ToolCall.Content = []sdk.ToolCallContent{sdk.ToolTerminalRef(string(id))}
	u.ToolCall.Meta = map[string]any{"terminal_info": map[string]any{"terminal_id": string(id), "cwd": cwd}}
	return u
}

// toolOutput takes a chunk of a running call's output (EventToolOutput).
func (t *turn) toolOutput(e agent.Event) {
	t.emu.Lock()
	c := t.calls[callKey(e)]
	t.emu.Unlock()
	if c == nil || c.out == nil {
		return
	}
	c.out.add(e.Text)
}

func (o *liveOutput) add(text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	o.total += len(text)
	if o.terminal {
		o.pending = append(o.pending, text...)
		if over := len(o.pending) - outputDelta; over > 0 {
			o.skipped += over
			o.pending = append(o.pending[:0], o.pending[over:]...)
		}
	} else {
		o.tail = append(o.tail, text...)
		if over := len(o.tail) - outputTail; over > 0 {
			o.tail = append(o.tail[:0], o.tail[over:]...)
		}
	}
	o.fresh = true
	o.scheduleLocked()
}

// scheduleLocked sends what is pending now if outputInterval has passed
// since the last update, else once it has: one timer at a time.
func (o *liveOutput) scheduleLocked() {
	wait := o.t.outputInterval - time.Since(o.sent)
	switch {
	case wait <= 0:
		o.flushLocked()
	case o.timer == nil:
		o.timerOf++
		timer := o.timerOf
		o.timer = time.AfterFunc(wait, func() { o.flush(timer) })
	}
}

// flush is timer's: unless an update went out since it was set (which
// stopped it, perhaps too late to keep it from running), what is pending
// goes out when due.
func (o *liveOutput) flush(timer int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if timer != o.timerOf || o.ended {
		return
	}
	o.timer = nil
	if o.fresh {
		o.scheduleLocked()
	}
}

// flushLocked sends what is pending, and stops the timer set for it: at
// most one update per outputInterval. o.mu held: updates of one command go
// out in order.
func (o *liveOutput) flushLocked() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	o.timerOf++
	o.sent, o.fresh = time.Now(), false
	if o.terminal {
		data := completeRunes(&o.pending)
		if data == "" {
			return
		}
		if o.skipped > 0 {
			data = "\n… (" + strconv.Itoa(o.skipped) + " bytes not shown) …\n" + trimToRune(data)
			o.skipped = 0
		}
		o.t.send(sdk.UpdateToolCall(o.id, withMeta(map[string]any{"terminal_output": map[string]any{"terminal_id": string(o.id), "data": tools.Displayable(data)}})))
		return
	}
	text := string(o.tail)
	if o.total > len(o.tail) {
		text = "… (" + strconv.Itoa(o.total-len(o.tail)) + " bytes above) …\n" + trimToRune(text)
	}
	o.t.send(sdk.UpdateToolCall(o.id, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(fenced(text)))})))
}

// end stops the updates: the result follows.
func (o *liveOutput) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ended = true
	if o.timer != nil {
		o.timer.Stop()
	}
}

// withMeta sets an update's _meta.
func withMeta(meta map[string]any) sdk.ToolCallUpdateOpt {
	return func(u *sdk.SessionToolCallUpdate) { u.Meta = meta }
}

// completeRunes takes the whole runes of *p, leaving a rune cut at its
// end for the next chunk.
func completeRunes(p *[]byte) string {
	b := *p
	n := len(b)
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				n = len(b) - i
			}
			break
		}
	}
	out := string(b[:n])
	*p = append(b[:0], b[n:]...)
	return out
}

// trimToRune drops the bytes of a rune cut at text's start.
func trimToRune(text string) string {
	for i := 0; i < len(text) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(text[i]) {
			return text[i:]
		}
	}
	return text
}

// exitCode reads a command's exit code from its result's last line
// ("[exit code: N]"); -1 when it has none (denied, failed to start).
func exitCode(r llm.ToolResult) int {
	i := strings.LastIndex(r.Content, "[exit code: ")
	if i < 0 {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(r.Content[i+len("[exit code: "):]), "]"))
	if err != nil {
		return -1
	}
	return n
}
