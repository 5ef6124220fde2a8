package mcp

import (
	"net/url"
	"strings"
)

// Status is a server as agent.status and `agent-lsp doctor` show it. It
// never holds what ${VAR} expands to, a header's value or a URL's query.
type Status struct {
	Name      string `json:"name"`
	Origin    string `json:"origin"`    // user, editor or project
	Transport string `json:"transport"` // stdio or http
	// Target is the command line or the URL, as configured.
	Target string `json:"target"`
	State  State  `json:"state"`
	Error  string `json:"error,omitempty"`
	// Restarts is 1 once the server died and was restarted.
	Restarts int `json:"restarts,omitempty"`
	// Tools are the names the model sees (listed once started), Allowed
	// those of them that run without asking.
	Tools   []string `json:"tools"`
	Allowed []string `json:"allowed,omitempty"`
	// Warnings say what of its list was left out.
	Warnings []string `json:"warnings,omitempty"`
}

// Status reports each of cfgs as the pool has it; a server no run has
// needed yet is "not started", with its tools unknown.
func (p *Pool) Status(cfgs []ServerConfig) []Status {
	out := make([]Status, 0, len(cfgs))
	for _, c := range cfgs {
		st := Status{Name: c.Name, Origin: c.Origin, Transport: c.Transport(), Target: target(c), State: StateIdle, Tools: []string{}}
		switch s := p.lookup(c); {
		case !c.Enabled:
			st.State = StateDisabled
		case c.Problem != "":
			st.State, st.Error = StateFailed, c.Problem
		case s != nil:
			snap := s.snapshot()
			st.State, st.Warnings = snap.state, snap.warnings
			if snap.err != nil {
				st.Error = snap.err.Error()
			}
			st.Restarts = min(snap.deaths, 1)
			for _, o := range snap.offers {
				if c.lists(c.DisabledTools, o.remote, o.name) {
					continue
				}
				st.Tools = append(st.Tools, o.name)
				if c.lists(c.AllowedTools, o.remote, o.name) {
					st.Allowed = append(st.Allowed, o.name)
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// target shows where a server is: the command line as written (${VAR}
// unexpanded), or the URL without its query and credentials.
func target(c ServerConfig) string {
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil {
			return "(an unreadable url)"
		}
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		return u.String()
	}
	return strings.Join(append([]string{c.Command}, c.Args...), " ")
}
