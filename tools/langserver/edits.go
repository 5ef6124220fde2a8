package langserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// AfterEdit reports the new errors after the run staged a change of abs,
// whose text was before: in abs, in the files that refer to what the
// change touched (opened, so that servers diagnosing open files only see
// them too), and in the files earlier edits brought in. "" when abs has no
// server, or its server was already said to be unavailable.
func (s *Session) AfterEdit(ctx context.Context, abs, before string) Report {
	s.track(abs) // judged from now on, even where this check cannot be made
	if cfg, root, ok := s.inNewDir(abs); ok {
		r, err := s.onStagedView(ctx, cfg, root, fmt.Sprintf("Language server: %s started for this run on a view holding your new folder %s.", cfg.Name, s.rel(filepath.Dir(abs))))
		if err == nil {
			return r
		}
		// Judged as an open document, which the server may see late.
	}
	u, lang, err := s.server(ctx, abs)
	if err != nil {
		return Report{Notes: nonEmpty(s.unavailable(abs, err))}
	}
	unlock := u.lock()
	defer unlock()
	if u.cfg.IsBuildFile(s.rel(abs)) {
		u.restart = true
	}
	affected, err := s.affected(ctx, u, lang, abs, before)
	incomplete := errors.Is(err, errIncomplete)
	if err != nil && !incomplete {
		return Report{Notes: nonEmpty(s.unavailable(abs, err))}
	}
	s.track(affected...)
	r, err := s.judge(ctx, u, lang, s.trackedFor(u))
	if err != nil {
		return Report{Notes: nonEmpty(s.unavailable(abs, err))}
	}
	if incomplete {
		r.Unknown = append(r.Unknown, Unknown{"the files that use what " + s.rel(abs) + "'s edit changed",
			fmt.Sprintf("%s was still at work (loading or indexing) past %s, so they may not all be found", u.cfg.Name, u.c.progressWait())})
	}
	return r
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// affected are the files (of u's server, in the workspace) that refer to
// the declarations an edit of abs from before to its staged text touched:
// the server is asked on before's text, where they still stand. Where
// they cannot all be known (the server was still busy past the wait),
// the error is errIncomplete, with the files found.
func (s *Session) affected(ctx context.Context, u *serverUse, lang, abs, before string) ([]string, error) {
	after, _ := s.text(abs)
	from, to := changedLines(before, after)
	if before == "" || from == to {
		return nil, nil
	}
	if _, err := s.sync(ctx, u, lang, nil, false, false); err != nil {
		return nil, err
	}
	if _, err := u.c.Sync(ctx, abs, lang, before, false); err != nil {
		return nil, err
	}
	u.opened[abs] = true
	if u.language[abs] == "" {
		u.language[abs] = lang
	}
	u.c.Prepare(ctx, abs)
	syms, err := u.c.DocumentSymbols(ctx, abs)
	u.c.log.Debug("declarations of an edited file", "server", u.cfg.Name, "symbols", len(syms), "changed lines", fmt.Sprint(from, "-", to), "error", err)
	if err != nil {
		return nil, nil // no outline: the file alone is checked
	}
	// References need the project indexed; a server has begun what the
	// open document started by the time it answered about it. Past the
	// wait, what the server finds is part of the project only.
	incomplete := !u.c.Settle(ctx)
	var out []string
	asked := 0
	for _, sym := range syms {
		line := int(sym.Selection.Start.Line)
		if line < from || line >= to || asked == maxChangedSymbols {
			continue
		}
		asked++
		locs, err := u.c.References(ctx, abs, sym.Selection.Start)
		u.c.log.Debug("references of a changed declaration", "server", u.cfg.Name, "symbol", sym.Name, "found", len(locs), "error", err)
		if err != nil {
			continue
		}
		for _, l := range locs {
			p := l.Path
			if p == abs || slices.Contains(out, p) || len(out) == maxAffected || !s.serves(u, p) {
				continue
			}
			out = append(out, p)
		}
	}
	if incomplete && asked > 0 {
		return out, errIncomplete
	}
	return out, nil
}

// errIncomplete: the server was still at work past the wait, so the
// files that use what an edit changed may not all be found.
var errIncomplete = errors.New("still at work past the wait")

// serves says whether p is in the workspace and u's server is for it.
func (s *Session) serves(u *serverUse, p string) bool {
	if _, _, err := s.view.Resolve(p); err != nil {
		return false
	}
	cfgs, _ := s.servers.For(p)
	return slices.ContainsFunc(cfgs, func(c ServerConfig) bool { return c.Name == u.cfg.Name })
}

// changedLines is the span [from, to) of before's lines that differ from
// after's: what is left between their common first and last lines.
func changedLines(before, after string) (from, to int) {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	for from < len(a) && from < len(b) && a[from] == b[from] {
		from++
	}
	end := 0
	for end < len(a)-from && end < len(b)-from && a[len(a)-1-end] == b[len(b)-1-end] {
		end++
	}
	to = len(a) - end
	if to == from && len(b)-end > from {
		to = from // a pure insertion touches no declaration that was there
	}
	return from, to
}

// Check diagnoses the whole changeset at the run's end, with the files
// the run's edits affected: the new errors of the proposal.
func (s *Session) Check(ctx context.Context) Report {
	var files []string
	for _, c := range s.view.Changes() {
		if s.Handles(c.AbsPath) {
			files = append(files, c.AbsPath)
		}
	}
	s.track(files...)
	s.mu.Lock()
	tracked := slices.Clone(s.tracked)
	s.mu.Unlock()
	var r Report
	done := map[*serverUse]bool{}
	for _, p := range tracked {
		u, lang, err := s.server(ctx, p)
		if errors.Is(err, errNoServer) {
			continue
		}
		if err != nil {
			r.Unknown = append(r.Unknown, Unknown{s.rel(p), err.Error()})
			continue
		}
		if done[u] {
			continue
		}
		done[u] = true
		unlock := u.lock()
		one, err := s.judge(ctx, u, lang, s.trackedFor(u))
		unlock()
		if err != nil {
			r.Unknown = append(r.Unknown, Unknown{s.rel(p), fmt.Sprintf("%s: %v", u.cfg.Name, err)})
			continue
		}
		r.merge(one)
	}
	return r
}
