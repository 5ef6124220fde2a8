package langserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Session is one run's use of the language servers: its view of the
// workspace sent as open documents, the run's baseline (what each file's
// errors were before the run), and the files the run's edits touched or
// affected. Safe for concurrent use; Close gives the documents back.
type Session struct {
	m       *Manager
	view    *tools.Workspace
	servers Servers

	mu       sync.Mutex // guards the fields below
	used     map[serverKey]*serverUse
	baseline map[string]errorCounts // by absolute path
	tracked  []string               // absolute paths, in the order met
	said     map[string]bool        // unavailable servers already told to the model
	// approve, when set, is asked before a server starts (the sandbox
	// below level full); denied servers are not asked for again.
	approve func(context.Context, Command) error
	denied  map[string]error
	// restartAfter are the shared servers a run-private one replaced:
	// restarted at Close, to read the build files the user may apply.
	restartAfter map[serverKey]ServerConfig
	// wantStaged are the servers the run staged a build file of before it
	// used them: started on its staged view when first needed.
	wantStaged map[serverKey]bool

	follower *bufferFollower // nil: the view's overlay says nothing of buffer changes
}

// AskBeforeStarting makes the session ask approve before it starts a
// server that is not running (a denial is said once and kept for the
// run).
func (s *Session) AskBeforeStarting(approve func(context.Context, Command) error) {
	s.mu.Lock()
	s.approve = approve
	s.mu.Unlock()
}

// serverUse is a server the session holds until Close.
type serverUse struct {
	c        *Client
	onEdit   EditHandler // stages the server's own edits into the run's changeset
	cfg      ServerConfig
	release  func()
	restart  bool            // a build file was staged: restart it after the run
	private  bool            // started for this run on its staged view (Private); release stops it
	dirs     map[string]bool // of a private one: the folders of the run's files its view holds
	opened   map[string]bool
	language map[string]string // by path: the LSP language id each was opened with
}

// NewSession starts a run's use of m over view with the servers in force.
// The editor's changes of the documents it has open on a server are sent
// as they happen (followBuffers).
func NewSession(m *Manager, view *tools.Workspace, servers Servers) *Session {
	s := &Session{m: m, view: view, servers: servers, used: map[serverKey]*serverUse{}, baseline: map[string]errorCounts{}, said: map[string]bool{}, denied: map[string]error{}, restartAfter: map[serverKey]ServerConfig{}, wantStaged: map[serverKey]bool{}}
	s.followBuffers()
	return s
}

// Close gives the documents back (didClose: the server reads disk again)
// and releases the servers; a server whose build files the run staged is
// restarted, so the next run starts it on what it then sees.
func (s *Session) Close() {
	s.stopFollowing()
	s.mu.Lock()
	used, restart := s.used, s.restartAfter
	s.used, s.restartAfter = map[serverKey]*serverUse{}, map[serverKey]ServerConfig{}
	s.mu.Unlock()
	for k, u := range used {
		s.giveBack(k, u)
	}
	for k, cfg := range restart {
		s.m.Restart(cfg, k.root)
	}
}

// giveBack closes u's documents and releases it; a shared server whose
// build files the run staged is restarted.
func (s *Session) giveBack(k serverKey, u *serverUse) {
	unlock := u.c.Use(nil)
	if !u.private {
		for p := range u.opened {
			_ = u.c.CloseDocument(context.Background(), p)
		}
	}
	unlock()
	u.release()
	if u.restart && !u.private {
		s.m.Restart(u.cfg, k.root)
	}
}

// workspaceRoot is the root of the workspace holding abs.
func (s *Session) workspaceRoot(abs string) string {
	best := s.view.Root()
	for _, r := range s.view.Roots() {
		if abs == r.Dir || strings.HasPrefix(abs, r.Dir+string(filepath.Separator)) {
			if len(r.Dir) > len(best) || !strings.HasPrefix(abs, best) {
				best = r.Dir
			}
		}
	}
	return best
}

// Handles says whether some server is configured for path's language
// and path is in a project of it (a root marker above it).
func (s *Session) Handles(abs string) bool {
	cfgs, _ := s.servers.For(abs)
	return len(s.inProject(cfgs, abs)) > 0
}

// inProject are those of cfgs with a project holding abs.
func (s *Session) inProject(cfgs []ServerConfig, abs string) []ServerConfig {
	var out []ServerConfig
	for _, c := range cfgs {
		if c.HasProject(abs, s.workspaceRoot(abs)) {
			out = append(out, c)
		}
	}
	return out
}

// Warm starts the server of abs without waiting (a run read the file).
func (s *Session) Warm(abs string) {
	cfgs, _ := s.servers.For(abs)
	if len(cfgs) == 0 || s.m.opts.Start == nil {
		return
	}
	for _, cfg := range cfgs {
		if _, err := s.m.opts.LookPath(cfg.Command); err == nil {
			s.m.Warm(cfg, cfg.ProjectRoot(abs, s.workspaceRoot(abs)))
			return
		}
	}
}

// server is the session's server for abs, acquired on first use: the
// first of the file's servers that can be had. The error says why none
// could, each server's reason (the install command of a missing one).
func (s *Session) server(ctx context.Context, abs string) (*serverUse, string, error) {
	cfgs, lang := s.servers.For(abs)
	return s.serverOf(ctx, cfgs, lang, abs)
}

// serverOf is the first of cfgs that can be had for abs's project.
func (s *Session) serverOf(ctx context.Context, cfgs []ServerConfig, lang, abs string) (*serverUse, string, error) {
	cfgs = s.inProject(cfgs, abs)
	if len(cfgs) == 0 {
		return nil, "", errNoServer
	}
	var whys []string
	for _, cfg := range cfgs {
		k := serverKey{cfg.Name, cfg.ProjectRoot(abs, s.workspaceRoot(abs))}
		s.mu.Lock()
		u, ok := s.used[k]
		approve, denied, staged := s.approve, s.denied[cfg.Name], s.wantStaged[k]
		s.mu.Unlock()
		if ok {
			return u, lang, nil
		}
		if denied != nil {
			whys = append(whys, denied.Error())
			continue
		}
		if staged {
			u, err := s.startOnStagedView(ctx, cfg, k.root)
			if err == nil {
				return u, lang, nil
			}
			s.m.opts.Logger.Warn("a language server could not start on the run's staged view: the shared one serves the run", "server", cfg.Name, "error", err)
			s.mu.Lock()
			delete(s.wantStaged, k)
			s.mu.Unlock()
		}
		c, release, err := s.m.Client(ctx, cfg, k.root, approve)
		var refused *NotApprovedError
		if errors.As(err, &refused) {
			s.mu.Lock()
			s.denied[cfg.Name] = err
			s.mu.Unlock()
		}
		if err != nil {
			whys = append(whys, err.Error())
			continue
		}
		u = s.newUse(c, cfg, release)
		s.mu.Lock()
		if prev, ok := s.used[k]; ok { // acquired twice at once
			s.mu.Unlock()
			release()
			return prev, lang, nil
		}
		s.used[k] = u
		s.mu.Unlock()
		return u, lang, nil
	}
	return nil, lang, errors.New(strings.Join(whys, "; "))
}

// newUse is the session's use of c, released by release.
func (s *Session) newUse(c *Client, cfg ServerConfig, release func()) *serverUse {
	u := &serverUse{c: c, cfg: cfg, release: release, opened: map[string]bool{}, language: map[string]string{}}
	u.onEdit = func(e WorkspaceEdit) (bool, string) {
		// A server's own edit (a command's) is staged like the run's.
		if _, err := s.stageEdit(u, e); err != nil {
			return false, err.Error()
		}
		return true, ""
	}
	return u
}

// lock holds u's server for one of the run's operations: its documents
// are the run's, and what the server edits meanwhile is staged into the
// run's changeset.
func (u *serverUse) lock() (unlock func()) { return u.c.Use(u.onEdit) }

// hold holds u's server for one of the run's questions, its documents
// made the run's view first (another run may have set its own text in
// them since this run last held it), abs's opened: the answer is about
// the run's text. The error comes with the server released.
func (s *Session) hold(ctx context.Context, u *serverUse, abs string) (unlock func(), err error) {
	unlock = u.lock()
	_, lang := s.servers.For(abs)
	var open []string
	if abs != "" {
		open = []string{abs}
	}
	if _, err := s.sync(ctx, u, lang, open, false, false); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// errNoServer: no server is configured for the file's language.
var errNoServer = errors.New("no language server for this kind of file")

// text is the run's view of abs: staged, else buffer, else disk; ok is
// false when the file is not in the view (deleted, never created).
func (s *Session) text(abs string) (string, bool) {
	f, err := s.view.Read(abs)
	if err != nil {
		return "", false
	}
	return f.Text, true
}

// original is what abs was before the run: a staged change's original,
// else the view (unstaged); ok is false for a file the run created.
func (s *Session) original(abs string) (string, bool) {
	for _, c := range s.view.Changes() {
		if c.AbsPath == abs {
			return c.Original, c.Existed
		}
	}
	return s.text(abs)
}

// sync makes the server's open documents the run's view (another run may
// have left its own text in one), opening files, and with bump giving
// each of them a new version; with originals, every document holds its
// text from before the run instead. Every file of the server's the run's view holds apart
// from disk (staged, or an unsaved editor buffer) is opened too: the
// server would read disk for it, and answer about another text than the
// run's. It returns the documents' versions. u's lock is held.
func (s *Session) sync(ctx context.Context, u *serverUse, lang string, files []string, bump, originals bool) (map[string]int32, error) {
	read := s.text
	if originals {
		read = s.original
	}
	versions := map[string]int32{}
	paths := append(append(u.c.Open(), files...), s.apartFromDisk(u)...)
	for _, p := range slices.Compact(slices.Sorted(slices.Values(paths))) {
		text, ok := read(p)
		if !ok {
			// Not in this view: an empty document stands for it, so that
			// what referred to it is diagnosed as it would be.
			text = ""
		}
		l := u.language[p]
		if l == "" {
			_, l = s.servers.For(p)
			if l == "" {
				l = lang
			}
			u.language[p] = l
		}
		v, err := u.c.Sync(ctx, p, l, text, bump && slices.Contains(files, p))
		if err != nil {
			return nil, err
		}
		u.opened[p] = true
		versions[p] = v
	}
	return versions, nil
}

// apartFromDisk are the files of u's server whose text in the run's view
// is not disk's: staged by the run, or unsaved in the editor.
func (s *Session) apartFromDisk(u *serverUse) []string {
	var out []string
	for _, c := range append(s.view.Changes(), s.view.UnsavedBuffers()...) {
		if s.serves(u, c.AbsPath) {
			out = append(out, c.AbsPath)
		}
	}
	return out
}

// rel is the workspace's name for abs.
func (s *Session) rel(abs string) string {
	if _, rel, err := s.view.Resolve(abs); err == nil {
		return rel
	}
	return abs
}

// unavailable says once per session that a file's server cannot be used.
func (s *Session) unavailable(abs string, err error) string {
	if errors.Is(err, errNoServer) {
		return ""
	}
	cfgs, _ := s.servers.For(abs)
	var names []string
	for _, c := range cfgs {
		names = append(names, c.Name)
	}
	key := strings.Join(names, " ")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.said[key] {
		return ""
	}
	s.said[key] = true
	return fmt.Sprintf("Language server for %s: %v.", s.rel(abs), err)
}
