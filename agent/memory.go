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
	"slices"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools"
)

// maxMemoryPrompt caps the notes added to the system prompt.
const maxMemoryPrompt = 4 << 10

// Memory is long-term notes about a workspace, kept in the state dir (never
// in the workspace), added to the system prompt of every run. The model's
// remember tool only proposes a note: it waits in the memory's pending list
// until the user keeps it (Keep), so a prompt injection read during one run
// cannot plant instructions in every later one. Give each run its own view
// (ForRun) so that runs' pending notes stay apart. Safe for concurrent use.
type Memory struct {
	file *notesFile // the saved notes, shared by a memory and its runs' views

	mu      sync.Mutex // guards pending
	pending []string
}

// notesFile is the saved notes.
type notesFile struct {
	path string
	mu   sync.Mutex // guards the file
}

// NewMemory keeps notes in stateDir/notes.jsonl.
func NewMemory(stateDir string) *Memory {
	return &Memory{file: &notesFile{path: filepath.Join(stateDir, "notes.jsonl")}}
}

// ForRun returns a view for one run: the same saved notes, and its own
// pending ones, empty at first. A nil memory gives nil (no remember tool).
func (m *Memory) ForRun() *Memory {
	if m == nil {
		return nil
	}
	return &Memory{file: m.file}
}

// Notes returns the saved notes, oldest first.
func (m *Memory) Notes() []string {
	m.file.mu.Lock()
	defer m.file.mu.Unlock()
	return m.file.readLocked()
}

func (f *notesFile) readLocked() []string {
	file, err := os.Open(f.path)
	if err != nil {
		return nil
	}
	defer file.Close()
	var notes []string
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		var n string
		if json.Unmarshal(sc.Bytes(), &n) == nil && n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

func (f *notesFile) writeLocked(notes []string) error { return writeJSONLines(f.path, notes) }

// Add saves a note at once: for notes the user writes, not the model.
func (m *Memory) Add(note string) error {
	note = strings.TrimSpace(note)
	if note == "" {
		return errors.New("empty note")
	}
	_, err := m.save([]string{note})
	return err
}

// save appends the notes not saved yet and returns how many it added.
func (m *Memory) save(notes []string) (int, error) {
	m.file.mu.Lock()
	defer m.file.mu.Unlock()
	saved := m.file.readLocked()
	n := len(saved)
	for _, note := range notes {
		if !slices.Contains(saved, note) {
			saved = append(saved, note)
		}
	}
	if len(saved) == n {
		return 0, nil
	}
	return len(saved) - n, m.file.writeLocked(saved)
}

// Propose adds a note to the pending ones; nothing is saved.
func (m *Memory) Propose(note string) error {
	note = strings.TrimSpace(note)
	if note == "" {
		return errors.New("empty note")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.pending, note) {
		m.pending = append(m.pending, note)
	}
	return nil
}

// Pending returns the proposed notes not yet kept or discarded.
func (m *Memory) Pending() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.pending)
}

// Keep saves the pending notes, the user having accepted them, and returns
// how many were new. On a write error they stay pending.
func (m *Memory) Keep() (int, error) {
	if m == nil {
		return 0, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.save(m.pending)
	if err == nil {
		m.pending = nil
	}
	return n, err
}

// Discard drops the pending notes and returns how many there were.
func (m *Memory) Discard() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.pending)
	m.pending = nil
	return n
}

// PendingNotice is how pending notes are shown with a run's answer, or ""
// when there are none. Each note is escaped (tools.Printable) and on one
// line: the user decides on what is shown, so nothing in it may be hidden.
func PendingNotice(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The agent wants to remember:")
	for _, n := range notes {
		b.WriteString("\n- " + tools.Printable(n))
	}
	return b.String()
}

// Forget removes note number index (1-based), or all notes when index is 0.
func (m *Memory) Forget(index int) (int, error) {
	m.file.mu.Lock()
	defer m.file.mu.Unlock()
	notes := m.file.readLocked()
	if index == 0 {
		if err := os.Remove(m.file.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, err
		}
		return len(notes), nil
	}
	if index < 1 || index > len(notes) {
		return 0, fmt.Errorf("no note %d (there are %d)", index, len(notes))
	}
	return 1, m.file.writeLocked(append(notes[:index-1], notes[index:]...))
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

// NewRememberTool lets the model propose a note for later sessions; it
// waits in m's pending notes for the user.
func NewRememberTool(m *Memory) tools.Tool {
	return &rememberTool{m: m, schema: tools.SchemaOf[rememberParams]()}
}

func init() {
	tools.Present("remember", tools.Presentation{Kind: tools.KindOther,
		Title: func(c tools.Call) string { return "Propose a note: " + c.FirstLine("note", 80) }})
}

func (r *rememberTool) Name() string { return "remember" }
func (r *rememberTool) Description() string {
	return "Propose a short note about this project for later sessions. The user sees it with your answer and decides whether to keep it (notes are kept outside the workspace)."
}
func (r *rememberTool) Schema() json.RawMessage { return r.schema }
func (r *rememberTool) ReadOnly() bool          { return false }
func (r *rememberTool) Execute(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var p rememberParams
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("invalid arguments: %v", err), nil
	}
	if err := r.m.Propose(p.Note); err != nil {
		return tools.Errorf("%v", err), nil
	}
	return tools.Result{Text: "Proposed: the user will be asked whether to keep this note for later sessions."}, nil
}
