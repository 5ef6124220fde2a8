package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agent-lsp/agent-lsp/tools"
)

// maxMemoryPrompt caps the notes added to the system prompt.
const maxMemoryPrompt = 4 << 10

// Memory is long-term notes about a workspace, kept in the state dir (never
// in the workspace), added to the system prompt of every run. Safe for
// concurrent use.
type Memory struct {
	path string
	mu   sync.Mutex // guards the file
}

// NewMemory keeps notes in stateDir/notes.jsonl.
func NewMemory(stateDir string) *Memory { return &Memory{path: filepath.Join(stateDir, "notes.jsonl")} }

// Notes returns the notes, oldest first.
func (m *Memory) Notes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.readLocked()
}

func (m *Memory) readLocked() []string {
	f, err := os.Open(m.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var notes []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var n string
		if json.Unmarshal(sc.Bytes(), &n) == nil && n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

func (m *Memory) writeLocked(notes []string) error { return writeJSONLines(m.path, notes) }

// Add appends a note.
func (m *Memory) Add(note string) error {
	note = strings.TrimSpace(note)
	if note == "" {
		return errors.New("empty note")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.writeLocked(append(m.readLocked(), note))
}

// Forget removes note number index (1-based), or all notes when index is 0.
func (m *Memory) Forget(index int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	notes := m.readLocked()
	if index == 0 {
		if err := os.Remove(m.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
		return len(notes), nil
	}
	if index < 1 || index > len(notes) {
		return 0, fmt.Errorf("no note %d (there are %d)", index, len(notes))
	}
	return 1, m.writeLocked(append(notes[:index-1], notes[index:]...))
}

// Prompt renders the notes for the system prompt, newest kept when capped.
func (m *Memory) Prompt() string {
	notes := m.Notes()
	if len(notes) == 0 {
		return ""
	}
	var kept []string
	size := 0
	for i := len(notes) - 1; i >= 0 && size+len(notes[i]) <= maxMemoryPrompt; i-- {
		kept = append([]string{notes[i]}, kept...)
		size += len(notes[i])
	}
	return "\n\n## Notes you saved about this project (remember tool)\n\n- " + strings.Join(kept, "\n- ")
}

type rememberParams struct {
	Note string `json:"note" jsonschema:"a fact worth knowing in later sessions: a convention, a command, a pitfall"`
}

type rememberTool struct {
	m      *Memory
	schema json.RawMessage
}

// NewRememberTool lets the model keep a note for later sessions.
func NewRememberTool(m *Memory) tools.Tool {
	s, _ := jsonschema.For[rememberParams](nil)
	raw, _ := json.Marshal(s)
	return &rememberTool{m: m, schema: raw}
}

func (r *rememberTool) Name() string { return "remember" }
func (r *rememberTool) Description() string {
	return "Save a short note about this project for later sessions (kept outside the workspace; the user can clear notes with agent.forget)."
}
func (r *rememberTool) Schema() json.RawMessage { return r.schema }
func (r *rememberTool) ReadOnly() bool          { return false }
func (r *rememberTool) Execute(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var p rememberParams
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	if err := r.m.Add(p.Note); err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Text: "Noted for later sessions."}, nil
}
