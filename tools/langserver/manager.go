package langserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools/sandbox"
)

// Defaults of a Manager's bounds.
const (
	DefaultIdle        = 10 * time.Minute
	DefaultMemory      = 2 << 30 // one server
	DefaultMemoryTotal = 6 << 30 // all of them
	// maxCrashes is how many times in a row a server may crash or fail to
	// start before it is unavailable for the Manager's life.
	maxCrashes = 3
)

// Options configure a Manager.
type Options struct {
	// Start starts a server; production passes the sandbox's. Nil: every
	// server is unavailable, said so.
	Start Starter
	// LookPath finds a command (default exec.LookPath).
	LookPath func(string) (string, error)
	// Idle is how long an unused server is kept (default DefaultIdle).
	Idle time.Duration
	// Memory bounds each server, MemoryTotal all of them: a start that
	// would go past the total first stops the least recently used idle
	// server, else is refused.
	Memory, MemoryTotal int64
	// Timeout bounds initialize and each request (default DefaultTimeout).
	Timeout time.Duration
	// MustAsk, when it says so, has every start asked first (the sandbox
	// below level full cannot hold what a server runs): a start with no
	// one to ask, such as a read's warming, is no start. Nil: never asked.
	MustAsk func() bool
	Logger  *slog.Logger
}

// Manager holds a process's language servers, one per (server, root),
// each started when first needed, shared by the runs on that root, stopped
// when idle. Safe for concurrent use; Close stops them all.
type Manager struct {
	opts   Options
	ctx    context.Context // ends at Close: starts under way give up
	cancel context.CancelFunc

	mu      sync.Mutex // guards servers, replaced, private, reserved and closed
	servers map[serverKey]*managed
	// replaced are servers a restart or a new configuration took out of
	// servers while runs still used them: each stops at its last release.
	replaced map[*managed]bool
	private  int // run-private servers running (Private)
	// reserved are starts under way, counted under the memory total until
	// their server is counted as running (or failed to start).
	reserved int
	closed   bool
}

type serverKey struct{ name, root string }

// NewManager makes a Manager; nothing starts before a run needs it.
func NewManager(opts Options) *Manager {
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.Idle <= 0 {
		opts.Idle = DefaultIdle
	}
	if opts.Memory <= 0 {
		opts.Memory = DefaultMemory
	}
	if opts.MemoryTotal <= 0 {
		opts.MemoryTotal = DefaultMemoryTotal
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Manager{opts: opts, servers: map[serverKey]*managed{}, replaced: map[*managed]bool{}}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// UnavailableError says why a server cannot be used: missing (with the
// install command), failed, crashed too often, or the memory bound.
type UnavailableError struct {
	Server string
	Why    string
}

func (e *UnavailableError) Error() string { return e.Server + " unavailable: " + e.Why }

// NotApprovedError: the user did not allow the server to start.
type NotApprovedError struct{ UnavailableError }

// managed is one server of the Manager.
type managed struct {
	m    *Manager
	cfg  ServerConfig
	root string

	mu       sync.Mutex // guards the fields below
	client   *Client
	starting chan struct{} // closed when the start under way ends
	stopping chan struct{} // closed when the idle server being stopped ended
	err      error         // why the last start failed, or how it crashed
	// notStarted is why the last start did not happen though nothing
	// failed: the command is missing, or the user did not allow it.
	notStarted *UnavailableError
	crashes    int // in a row
	retryAt    time.Time
	lastUsed   time.Time
	users      int
	idle       *time.Timer
	stopped    bool // stop was called: nothing starts again
	replaced   bool // out of the Manager's servers: stop at the last release
}

func (m *Manager) server(cfg ServerConfig, root string) (*managed, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, &UnavailableError{cfg.Name, "agent-lsp is shutting down"}
	}
	k := serverKey{cfg.Name, root}
	s, ok := m.servers[k]
	if !ok || !reflect.DeepEqual(s.cfg, cfg) {
		if unused := m.replaceLocked(k); unused != nil {
			go unused.stopReplaced() // its configuration changed
		}
		s = &managed{m: m, cfg: cfg, root: root}
		m.servers[k] = s
	}
	return s, nil
}

// replaceLocked takes k's server out of servers, so the next use starts a
// new one; the runs using it keep it until they are done, when it stops.
// It returns the server if no run uses it: the caller stops it
// (stopReplaced) once m.mu, which is held, is released.
func (m *Manager) replaceLocked(k serverKey) (unused *managed) {
	s, ok := m.servers[k]
	if !ok {
		return nil
	}
	delete(m.servers, k)
	m.replaced[s] = true
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replaced = true
	if s.users == 0 {
		return s
	}
	return nil
}

func (s *managed) stopReplaced() {
	s.stop()
	s.m.mu.Lock()
	delete(s.m.replaced, s)
	s.m.mu.Unlock()
}

// Client returns the running server cfg for root, starting it (and
// waiting, within ctx) if need be. release must be called when the caller
// is done with it: the idle time counts from the last release.
//
// approve, when not nil, is asked before the server is started (not when
// it runs already); its error is a NotApprovedError, and no failure.
func (m *Manager) Client(ctx context.Context, cfg ServerConfig, root string, approve func(context.Context, Command) error) (c *Client, release func(), err error) {
	var s *managed
	for {
		if s, err = m.server(cfg, root); err != nil {
			return nil, nil, err
		}
		c, err = s.acquire(ctx, approve)
		if !errors.Is(err, errReplaced) {
			break
		}
	}
	if err != nil {
		return nil, nil, err
	}
	var once sync.Once
	return c, func() { once.Do(s.release) }, nil
}

// Warm starts cfg for root without waiting: a run read a file of its.
// Where every start is asked (MustAsk), a read asks no one, so nothing
// starts: the run's first edit or language tool asks.
func (m *Manager) Warm(cfg ServerConfig, root string) {
	if m.mustAsk() {
		return
	}
	go func() {
		if _, release, err := m.Client(m.ctx, cfg, root, nil); err == nil {
			release()
		}
	}()
}

// Restart has the next use of cfg's server for root start it again (a
// build file changed); the one running now stops when no run uses it.
func (m *Manager) Restart(cfg ServerConfig, root string) {
	m.mu.Lock()
	unused := m.replaceLocked(serverKey{cfg.Name, root})
	m.mu.Unlock()
	if unused != nil {
		unused.stopReplaced()
	}
}

// errReplaced: the server was replaced before its use began; the Manager
// has a new one.
var errReplaced = errors.New("replaced")

func (s *managed) acquire(ctx context.Context, approve func(context.Context, Command) error) (*Client, error) {
	for {
		s.mu.Lock()
		if s.replaced && s.client == nil {
			s.mu.Unlock()
			return nil, errReplaced
		}
		if s.client != nil {
			select {
			case <-s.client.Exited():
				s.crashed()
			default:
				s.users++
				if s.idle != nil {
					s.idle.Stop()
				}
				c := s.client
				s.mu.Unlock()
				return c, nil
			}
		}
		if s.crashes >= maxCrashes {
			err := s.err
			s.mu.Unlock()
			return nil, &UnavailableError{s.cfg.Name, fmt.Sprintf("%v (%d times in a row; it is not started again until agent-lsp restarts)", err, maxCrashes)}
		}
		if wait := time.Until(s.retryAt); wait > 0 {
			err := s.err
			s.mu.Unlock()
			return nil, &UnavailableError{s.cfg.Name, fmt.Sprintf("%v; tried again in %s", err, wait.Round(time.Second))}
		}
		if ch := cmpOr(s.starting, s.stopping); ch != nil {
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		s.starting = ch
		s.mu.Unlock()
		c, counted, err := s.m.start(ctx, s.cfg, s.root, nil, approve)
		s.mu.Lock()
		s.starting = nil
		if err != nil {
			var refused *NotApprovedError
			var missing *UnavailableError
			switch {
			case errors.As(err, &refused):
				s.notStarted = &refused.UnavailableError
			case errors.As(err, &missing):
				s.notStarted = missing
			default:
				s.failed(err)
			}
			s.mu.Unlock()
			close(ch)
			return nil, err
		}
		if s.stopped { // the Manager closed while it started
			s.mu.Unlock()
			counted()
			close(ch)
			c.Close()
			return nil, &UnavailableError{s.cfg.Name, "agent-lsp is shutting down"}
		}
		s.client, s.crashes, s.notStarted = c, 0, nil
		s.mu.Unlock()
		counted() // now counted as running
		close(ch)
	}
}

// crashed records that the running server ended unasked; s.mu is held.
func (s *managed) crashed() {
	err := s.client.exitError()
	s.client.kill()
	s.client = nil
	s.failed(fmt.Errorf("it crashed (%v)", err))
}

// failed records a failure and backs off: 1s, 2s, 4s …; s.mu is held.
func (s *managed) failed(err error) {
	s.err = err
	s.crashes++
	s.retryAt = time.Now().Add(time.Second << (s.crashes - 1))
	s.m.opts.Logger.Warn("language server failed", "server", s.cfg.Name, "root", s.root, "error", err)
}

func (s *managed) release() {
	s.mu.Lock()
	s.users--
	s.lastUsed = time.Now()
	last := s.users == 0
	if last && s.client != nil && !s.replaced {
		s.idle = time.AfterFunc(s.m.opts.Idle, s.stopIfIdle)
	}
	replaced := s.replaced
	s.mu.Unlock()
	if last && replaced {
		s.stopReplaced()
	}
}

func (s *managed) stopIfIdle() {
	s.mu.Lock()
	if s.users > 0 || s.client == nil || time.Since(s.lastUsed) < s.m.opts.Idle {
		s.mu.Unlock()
		return
	}
	s.retire()
}

// retire stops the idle server; a use meanwhile waits for its end, so
// that two of its processes never run at once. s.mu is held, and
// released.
func (s *managed) retire() {
	c, ch := s.client, make(chan struct{})
	s.client, s.stopping = nil, ch
	s.mu.Unlock()
	c.Close()
	s.mu.Lock()
	s.stopping = nil
	s.mu.Unlock()
	close(ch)
}

// cmpOr is the first non-nil channel.
func cmpOr(a, b chan struct{}) chan struct{} {
	if a != nil {
		return a
	}
	return b
}

// stop ends the server now, and waits for a start or an idle stop under
// way to end (a start finishing then is stopped too).
func (s *managed) stop() {
	s.mu.Lock()
	c := s.client
	s.client = nil
	s.crashes = maxCrashes // a stopped entry is never started again
	s.err = errors.New("stopped")
	s.stopped = true
	if s.idle != nil {
		s.idle.Stop()
	}
	busy := cmpOr(s.starting, s.stopping)
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
	if busy != nil {
		<-busy
		s.mu.Lock()
		c, s.client = s.client, nil
		s.mu.Unlock()
		if c != nil {
			c.Close()
		}
	}
}

// Private starts cfg for root on view, for one run alone (the run staged
// a file that acts on the build, which the shared server cannot see): it
// is not shared, not kept warm, and counts under the memory total until
// stop, which the run calls at its end.
func (m *Manager) Private(ctx context.Context, cfg ServerConfig, root string, view sandbox.View, approve func(context.Context, Command) error) (c *Client, stop func(), err error) {
	c, counted, err := m.start(ctx, cfg, root, &view, approve)
	if err != nil {
		return nil, nil, err
	}
	m.mu.Lock()
	m.private++
	m.mu.Unlock()
	counted()
	uncount := func() {
		m.mu.Lock()
		m.private--
		m.mu.Unlock()
	}
	var once sync.Once
	return c, func() { once.Do(func() { c.Close(); uncount() }) }, nil
}

// start is the one way a server process starts: it finds the command,
// asks approve where every start is asked (MustAsk; nil approve: no one to
// ask, so no start), reserves room under the memory total and starts the
// server in the Starter, on view when set (Private). The caller calls
// counted once the server is counted as running, which ends the
// reservation.
func (m *Manager) start(ctx context.Context, cfg ServerConfig, root string, view *sandbox.View, approve func(context.Context, Command) error) (c *Client, counted func(), err error) {
	if m.opts.Start == nil {
		return nil, nil, &UnavailableError{cfg.Name, "language servers run in the sandbox, which this build cannot start"}
	}
	path, err := m.opts.LookPath(cfg.Command)
	if err != nil {
		return nil, nil, &UnavailableError{cfg.Name, fmt.Sprintf("%s is not installed (not on PATH); install it with: %s", cfg.Command, cfg.Install)}
	}
	cmd := Command{Name: cfg.Name, Argv: append([]string{path}, cfg.Args...), IndexBesideCompileCommands: cfg.IndexBesideCompileCommands,
		Root: root, Memory: m.opts.Memory, View: view}
	if m.mustAsk() {
		if approve == nil {
			return nil, nil, &NotApprovedError{UnavailableError{cfg.Name, "not started: no one was asked to allow it"}}
		}
		if err := approve(ctx, cmd); err != nil {
			return nil, nil, &NotApprovedError{UnavailableError{cfg.Name, err.Error()}}
		}
	}
	counted, err = m.reserve(cfg)
	if err != nil {
		return nil, nil, err
	}
	// The process lives until the Manager closes (a starter may tie it to
	// its context); the timeout bounds initialize only.
	proc, err := m.opts.Start(m.ctx, cmd)
	if err != nil {
		counted()
		return nil, nil, fmt.Errorf("starting %s: %w", cfg.Name, err)
	}
	ictx, cancel := context.WithTimeout(m.ctx, m.timeout())
	defer cancel()
	c, err = Start(ictx, proc, ClientOptions{Name: cfg.Name, Roots: []string{root}, InitializationOptions: cfg.InitializationOptions, Timeout: m.opts.Timeout, Logger: m.opts.Logger, TSServerDiagnostics: cfg.TSServerDiagnostics, ClangdRebuild: cfg.ClangdRebuild, Loaded: cfg.Loaded})
	if err != nil {
		counted()
		return nil, nil, err
	}
	return c, counted, nil
}

// mustAsk says whether every start is asked first.
func (m *Manager) mustAsk() bool { return m.opts.MustAsk != nil && m.opts.MustAsk() }

func (m *Manager) timeout() time.Duration {
	if m.opts.Timeout > 0 {
		return m.opts.Timeout
	}
	return DefaultTimeout
}

// reserve makes room for one more server under the memory total,
// stopping least recently used idle servers, and counts it as starting
// until done is called: two starts at once cannot both take the last room.
func (m *Manager) reserve(cfg ServerConfig) (done func(), err error) {
	for {
		var running int
		var idle []idleServer
		m.mu.Lock()
		for s := range m.replaced {
			s.mu.Lock()
			if s.client != nil {
				running++ // in use, never idle
			}
			s.mu.Unlock()
		}
		for _, s := range m.servers {
			s.mu.Lock()
			if s.client != nil {
				running++
				if s.users == 0 {
					idle = append(idle, idleServer{s, s.lastUsed})
				}
			}
			s.mu.Unlock()
		}
		taken := running + m.private + m.reserved
		if int64(taken+1)*m.opts.Memory <= m.opts.MemoryTotal {
			m.reserved++
			m.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					m.mu.Lock()
					m.reserved--
					m.mu.Unlock()
				})
			}, nil
		}
		m.mu.Unlock()
		if len(idle) == 0 {
			return nil, &UnavailableError{cfg.Name, fmt.Sprintf("the language servers' memory bound (%d MiB, %d MiB each) is taken by %d servers in use", m.opts.MemoryTotal>>20, m.opts.Memory>>20, taken)}
		}
		slices.SortFunc(idle, func(a, b idleServer) int { return a.lastUsed.Compare(b.lastUsed) })
		idle[0].s.stopIfIdleNow()
	}
}

// idleServer is a server no run uses, with when it was last used (read
// under its lock).
type idleServer struct {
	s        *managed
	lastUsed time.Time
}

func (s *managed) stopIfIdleNow() {
	s.mu.Lock()
	if s.users > 0 || s.client == nil {
		s.mu.Unlock()
		return
	}
	s.retire()
}

// Status is one server as doctor and agent.status show it.
type Status struct {
	Server string `json:"server"`
	Root   string `json:"root"`
	// State is "running (pid N)", "starting", "stopped (idle)" or
	// "unavailable: why".
	State string `json:"state"`
}

// Status lists the servers this Manager knows, by server and root (none
// for nil).
func (m *Manager) Status() []Status {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	for s := range m.replaced {
		s.mu.Lock()
		if s.client != nil && !s.client.hasExited() {
			out = append(out, Status{Server: s.cfg.Name, Root: s.root, State: fmt.Sprintf("running (pid %d), replaced: it ends with the runs using it", s.client.Pid())})
		}
		s.mu.Unlock()
	}
	for _, s := range m.servers {
		s.mu.Lock()
		st := Status{Server: s.cfg.Name, Root: s.root}
		switch {
		case s.client != nil:
			st.State = fmt.Sprintf("running (pid %d)", s.client.Pid())
		case s.starting != nil:
			st.State = "starting"
		case s.err != nil:
			st.State = "unavailable: " + s.err.Error()
		case s.notStarted != nil:
			st.State = "unavailable: " + s.notStarted.Why
		default:
			st.State = "stopped (idle)"
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server+out[i].Root < out[j].Server+out[j].Root })
	return out
}

// Running counts the server processes running now.
func (m *Manager) Running() int {
	n := 0
	for _, st := range m.Status() {
		if st.State != "" && st.State[0] == 'r' {
			n++
		}
	}
	return n
}

// Close stops every server and waits for their processes; later uses are
// refused. A nil Manager has nothing to close.
func (m *Manager) Close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	for s := range m.replaced {
		servers = append(servers, s)
	}
	m.servers, m.replaced = map[serverKey]*managed{}, map[*managed]bool{}
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.stop)
	}
	wg.Wait()
}
