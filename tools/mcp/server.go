package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/tools"
)

// State is where a server is in its life.
type State string

const (
	StateIdle     State = "not started" // starts when a run first needs its tools
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed" // its tools are left out
	StateDisabled State = "disabled"
	StateStopped  State = "stopped" // the pool was closed, or a newer configuration replaced it
)

// terminateAfter is how long a stdio server has to exit after its stdin is
// closed, and again after SIGTERM, before it is killed.
const terminateAfter = 2 * time.Second

// maxTools bounds the tools taken from one server: each costs context.
const maxTools = 128

// server is one configured MCP server and its connection. It starts on the
// first ensure, is restarted once when it dies, and is failed for good
// after that or when a start fails.
type server struct {
	cfg  ServerConfig
	key  string
	pool *Pool

	mu       sync.Mutex // guards the fields below
	state    State
	err      error           // why it failed or stopped
	starting chan struct{}   // closed when the current start ends
	conn     *live           // while ready
	offers   []offer         // its tools, as the model sees them
	warnings []string        // what listing them left out
	prompts  []Prompt        // its prompts, while ready
	gen      uint64          // changes whenever offers or conn do
	starts   int             // successful starts
	deaths   int             // times it died once started; the first is restarted
	lastExit string          // how it died last
	took     time.Duration   // how long the last start took
	inflight int             // calls under way
	retiring bool            // a newer configuration replaced it: stop when idle
	always   map[string]bool // tools (the server's names) the user allowed for good
	admitted bool            // the user allowed it to start for good (see Source.admit)
	stderr   *tail
	// url is the URL as connected to, ${VAR}s expanded: never shown (errors
	// that quote it are redacted).
	url string
	// pending is the process group of a stdio server being started, killed
	// when the start times out or the pool closes first.
	pending int
}

// live is one connection to a server.
type live struct {
	sess *sdk.ClientSession
	pid  int           // the stdio server's process (and group) id; 0 for HTTP
	done chan struct{} // closed once the connection ended and its processes are gone
}

func newServer(p *Pool, cfg ServerConfig, key string) *server {
	s := &server{cfg: cfg, key: key, pool: p, state: StateIdle, always: map[string]bool{}, stderr: &tail{}}
	if cfg.Problem != "" {
		s.state, s.err = StateFailed, errors.New(cfg.Problem)
	}
	return s
}

// ensure returns the server's connection, starting it (and waiting for the
// start) when it is not running. An error means its tools are absent: it
// failed, was stopped, or ctx ended first (the start goes on).
func (s *server) ensure(ctx context.Context) (*live, error) {
	s.mu.Lock()
	for {
		switch s.state {
		case StateReady:
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case StateFailed, StateStopped, StateDisabled:
			err := s.err
			s.mu.Unlock()
			return nil, err
		case StateIdle:
			s.state, s.starting = StateStarting, make(chan struct{})
			go s.start()
		}
		wait := s.starting
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
}

// start connects, initializes and lists the tools within the timeout. A
// connection that comes too late is closed when it comes.
func (s *server) start() {
	timeout := s.cfg.timeout()
	ctx, cancel := context.WithTimeout(s.pool.ctx, timeout)
	defer cancel()
	began := time.Now()
	type started struct {
		c       *live
		offers  []offer
		warns   []string
		prompts []Prompt
		err     error
	}
	result := make(chan started, 1)
	go func() {
		c, err := s.connect(ctx)
		if err != nil {
			result <- started{err: err}
			return
		}
		var listed []*sdk.Tool
		if declared(c.sess).Tools != nil { // one with prompts alone answers tools/list with an error
			if listed, err = listTools(ctx, c.sess); err != nil {
				c.close()
				result <- started{err: err}
				return
			}
		}
		offers, warns := prepare(s.cfg.Name, listed)
		result <- started{c: c, offers: offers, warns: warns, prompts: s.listPrompts(ctx, c.sess)}
	}()
	var r started
	select {
	case r = <-result:
	case <-ctx.Done():
		r.err = ctx.Err()
		s.mu.Lock()
		killGroup(s.pending) // a server that does not answer is not left running
		s.mu.Unlock()
		go func() { // closes what comes too late
			if late := <-result; late.c != nil {
				late.c.close()
			}
		}()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { close(s.starting); s.starting = nil }()
	switch {
	case s.state == StateStopped:
		if r.c != nil {
			go r.c.close()
		}
		return
	case r.err != nil:
		s.state, s.err = StateFailed, s.startError(r.err, timeout)
		s.gen++
		return
	}
	select {
	case <-r.c.done:
		s.state, s.err = StateFailed, s.startError(errors.New("it exited as soon as it had started"), timeout)
		s.gen++
		return
	default:
	}
	s.state, s.conn, s.offers, s.warnings, s.prompts = StateReady, r.c, r.offers, r.warns, r.prompts
	s.starts++
	s.took = time.Since(began)
	s.gen++
	go s.pool.changed(s)
}

// redact takes the URL's query and credentials (a token, often) out of an
// error that quotes it. Called with mu held.
func (s *server) redact(err error) error {
	if err == nil || s.url == "" || !strings.Contains(err.Error(), s.url) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), s.url, target(s.cfg)))
}

// startError says why a start failed, with what the server wrote on stderr.
// Called with mu held.
func (s *server) startError(err error, timeout time.Duration) error {
	err = s.redact(err)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s (timeout_s)", timeout)
	}
	if s.deaths > 0 {
		err = fmt.Errorf("the restart after it exited (%s) failed: %w", s.lastExit, err)
	}
	if t := s.stderr.String(); t != "" {
		return fmt.Errorf("%w; its stderr ends: %s", err, t)
	}
	return err
}

// ended is told that a connection ended. When it was the server's and not
// closed by us, the server died: the first time it is restarted on next
// use, after that it has failed. It runs before the connection's done
// closes, so a call that saw the end finds the server's state changed.
func (s *server) ended(c *live) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return // stopped by us
	}
	s.conn, s.offers, s.warnings, s.prompts = nil, nil, nil, nil
	s.gen++
	s.deaths++
	s.lastExit = "it exited"
	if t := s.stderr.String(); t != "" {
		s.lastExit += "; its stderr ends: " + t
	}
	if s.deaths > 1 {
		s.state, s.err = StateFailed, fmt.Errorf("it exited again after its restart (%s)", s.lastExit)
		return
	}
	s.state = StateIdle
	s.stderr.reset()
}

// stop ends the server for good (the pool closes, or a newer configuration
// replaces it) and waits until its processes are gone.
func (s *server) stop(why error) {
	s.mu.Lock()
	killGroup(s.pending)
	c := s.conn
	s.conn, s.offers, s.prompts = nil, nil, nil
	s.state, s.err = StateStopped, why
	s.gen++
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// errReplaced stops a server whose configuration changed.
var errReplaced = errors.New("its configuration changed; the new one is used from the next run")

// retire stops the server once no call is using it.
func (s *server) retire() {
	s.mu.Lock()
	s.retiring = true
	busy := s.inflight > 0
	s.mu.Unlock()
	if !busy {
		s.stop(errReplaced)
	}
}

// begin and end bracket a call, so a retiring server waits for it.
func (s *server) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight++
}

func (s *server) end() {
	s.mu.Lock()
	s.inflight--
	idle := s.retiring && s.inflight == 0
	s.mu.Unlock()
	if idle {
		go s.stop(errReplaced)
	}
}

// close ends the connection: stdin closed, then SIGTERM and SIGKILL (the
// SDK's sequence), then whatever is left of the process group.
func (c *live) close() {
	_ = c.sess.Close()
	killGroup(c.pid)
	<-c.done
}

// connect starts the stdio server or connects to the HTTP one and
// initializes the session.
func (s *server) connect(ctx context.Context) (*live, error) {
	exp := &expander{}
	if s.cfg.ReadsEnv {
		exp.env = s.pool.env
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agent-lsp", Version: s.pool.opts.Version}, &sdk.ClientOptions{
		Logger: s.pool.log,
		// No roots, sampling or elicitation: the agent offers tools, nothing else.
		Capabilities:             &sdk.ClientCapabilities{},
		ToolListChangedHandler:   func(context.Context, *sdk.ToolListChangedRequest) { go s.refresh() },
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) { go s.refreshPrompts() },
	})
	c := &live{done: make(chan struct{})}
	var transport sdk.Transport
	var cmd *exec.Cmd
	if s.cfg.URL != "" {
		url, headers := exp.expand(s.cfg.URL), exp.expandMap(s.cfg.Headers)
		if err := exp.err(); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.url = url
		s.mu.Unlock()
		transport = &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient(url, headers)}
	} else {
		command, args, env, dir := exp.expand(s.cfg.Command), exp.expandAll(s.cfg.Args), exp.expandMap(s.cfg.Env), exp.expand(s.cfg.Dir)
		if err := exp.err(); err != nil {
			return nil, err
		}
		cmd = exec.Command(command, args...)
		cmd.Env = childEnv(s.pool.env, env)
		cmd.Dir = s.cfg.Root
		if dir != "" {
			cmd.Dir = dir
			if !filepath.IsAbs(dir) {
				cmd.Dir = filepath.Join(s.cfg.Root, dir)
			}
		}
		cmd.Stderr = s.stderr
		// A child the server left behind may hold stderr open: once the
		// server exited, stop waiting for it (killGroup ends the child).
		cmd.WaitDelay = 100 * time.Millisecond
		ownGroup(cmd)
		transport = watchedCommand{&sdk.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}, s.setPending}
	}
	sess, err := client.Connect(ctx, transport, nil)
	if cmd != nil && cmd.Process != nil {
		c.pid = cmd.Process.Pid
	}
	s.setPending(0)
	if err != nil {
		killGroup(c.pid)
		return nil, err
	}
	c.sess = sess
	// done closes once the connection ended, however: closed by us, or the
	// server gone; what is left of its process group goes with it.
	go func() {
		_ = sess.Wait()
		killGroup(c.pid)
		s.ended(c)
		close(c.done)
	}()
	return c, nil
}

// watchedCommand is the SDK's command transport, telling when the process
// runs (before the handshake), so a start that never ends can be ended.
type watchedCommand struct {
	*sdk.CommandTransport
	running func(pid int)
}

func (t watchedCommand) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err == nil {
		t.running(t.Command.Process.Pid)
	}
	return conn, err
}

func (s *server) setPending(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = pid
}

// relist lists again on the live connection after the server said a list
// changed: list runs unlocked, and keep (called with s.mu held) stores its
// result while that connection is still the live one. The pool is told
// with no lock held: its OnChange may read the pool (ACP's menu does).
func (s *server) relist(list func(ctx context.Context, c *live) (keep func(), ok bool)) {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.pool.ctx, s.cfg.timeout())
	defer cancel()
	keep, ok := list(ctx, c)
	if !ok {
		return
	}
	s.mu.Lock()
	if s.conn == c {
		keep()
	}
	s.mu.Unlock()
	s.pool.changed(s)
}

// refresh lists the tools again after the server said they changed.
func (s *server) refresh() {
	s.relist(func(ctx context.Context, c *live) (func(), bool) {
		listed, err := listTools(ctx, c.sess)
		if err != nil {
			s.pool.log.Warn("mcp: listing the tools again", "server", s.cfg.Name, "error", err)
			return nil, false
		}
		offers, warns := prepare(s.cfg.Name, listed)
		return func() { s.offers, s.warnings, s.gen = offers, warns, s.gen+1 }, true
	})
}

// declared is what the server said at initialize it has: its tools, its
// prompts. Only what it declared is asked for.
func declared(sess *sdk.ClientSession) sdk.ServerCapabilities {
	if r := sess.InitializeResult(); r != nil && r.Capabilities != nil {
		return *r.Capabilities
	}
	return sdk.ServerCapabilities{}
}

func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing its tools: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// snapshot is a server's state at one moment.
type snapshot struct {
	state    State
	err      error
	offers   []offer
	warnings []string
	gen      uint64
	starts   int
	deaths   int
	lastExit string
	took     time.Duration
}

func (s *server) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot{state: s.state, err: s.err, offers: s.offers, warnings: s.warnings, gen: s.gen,
		starts: s.starts, deaths: s.deaths, lastExit: s.lastExit, took: s.took}
}

func (s *server) allowedAlways(tool string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.always[tool]
}

func (s *server) allowAlways(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always[tool] = true
}

// httpClient sends the configured headers (a token, often) to the
// server's own host only, and follows no redirect to another host.
func httpClient(endpoint string, headers map[string]string) *http.Client {
	host := ""
	if u, err := neturl.Parse(endpoint); err == nil {
		host = u.Host
	}
	return &http.Client{
		Transport: withHeaders{host: host, headers: headers, next: http.DefaultTransport},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Host != host {
				return fmt.Errorf("redirected to another host (%s): not followed", req.URL.Host)
			}
			return nil
		},
	}
}

// withHeaders adds the configured headers to the requests to host.
type withHeaders struct {
	host    string
	headers map[string]string
	next    http.RoundTripper
}

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 && r.URL.Host == h.host {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.next.RoundTrip(r)
}

// tail keeps the last bytes a server wrote on stderr, for error messages.
type tail struct {
	mu  sync.Mutex // guards buf
	buf []byte
}

const tailSize = 1024

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// String is the tail on one line, its last few lines joined, escaped (it
// goes to terminals and editors).
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	for i, l := range lines {
		lines[i] = tools.Printable(strings.TrimSpace(l))
	}
	return strings.Join(lines, " | ")
}

func (t *tail) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = nil
}
