package agent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/llm"
)

// StateDir is where agent-lsp keeps what it remembers about one workspace
// (sessions, notes): $XDG_STATE_HOME/agent-lsp/<name>-<hash of the root>, or
// ~/.local/state/… — never inside the workspace.
func StateDir(env func(string) string, root string) string {
	base := env("XDG_STATE_HOME")
	if base == "" {
		home := env("HOME")
		if home == "" {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".local", "state")
	}
	if root == "" {
		return filepath.Join(base, "agent-lsp", "no-workspace")
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "agent-lsp", filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
}

// SessionInfo describes a stored conversation.
type SessionInfo struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Updated time.Time `json:"updated"`
}

// SessionStore keeps conversations as JSONL files (one message a line), so a
// follow-up after restarting the editor continues. Safe for concurrent use.
type SessionStore struct {
	dir    string
	mu     sync.Mutex      // serialises writes and id allocation
	issued map[string]bool // ids handed out by this process, saved or not
	// lastBase and lastN are the second and the counter of the last id.
	lastBase string
	lastN    int
}

// NewSessionStore keeps sessions under stateDir/sessions.
func NewSessionStore(stateDir string) *SessionStore {
	return &SessionStore{dir: filepath.Join(stateDir, "sessions"), issued: map[string]bool{}}
}

func (s *SessionStore) path(id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return "", fmt.Errorf("invalid session id %q", id)
	}
	return filepath.Join(s.dir, id+".jsonl"), nil
}

// NewID returns a fresh, sortable session id.
func (s *SessionStore) NewID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := time.Now().UTC().Format("20060102-150405")
	// Within one second, go on from the last id issued rather than
	// checking every earlier one again.
	start := 0
	if base == s.lastBase {
		start = s.lastN + 1
	}
	for n := start; ; n++ {
		id := base
		if n > 0 {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		p, _ := s.path(id)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) && !s.issued[id] {
			s.issued[id] = true // nothing is written until the session has messages
			s.lastBase, s.lastN = base, n
			return id
		}
	}
}

// Delete removes a stored session; one never saved is no error.
func (s *SessionStore) Delete(id string) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Save writes h as the session's whole content (atomically: a crash leaves
// the previous version).
func (s *SessionStore) Save(id string, h *History) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	if h.Len() == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return writeJSONLines(p, h.Messages())
}

// writeJSONLines writes items as one JSON value a line, atomically: the file
// is written beside its final name and renamed over it, so a crash leaves the
// previous version. Sessions and notes are stored this way.
func writeJSONLines[T any](path string, items []T) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load reads a session. A damaged line is skipped rather than losing the rest.
func (s *SessionStore) Load(id string) (*History, error) {
	p, err := s.path(id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := &History{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m llm.Message
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Role != "" {
			h.msgs = append(h.msgs, m)
		}
	}
	return h, sc.Err()
}

// List returns the stored sessions, newest first.
func (s *SessionStore) List() ([]SessionInfo, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, SessionInfo{ID: id, Title: s.title(filepath.Join(s.dir, e.Name())), Updated: info.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// title is the first line of a session's first user message, read without
// loading the rest (initialize lists sessions; it must stay fast).
func (s *SessionStore) title(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "(unreadable)"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var m llm.Message
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Role == llm.RoleUser {
			return firstLine(m.Text)
		}
	}
	return "(empty)"
}
