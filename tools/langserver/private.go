package langserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
)

// A server reads its build files from disk (gopls took neither a staged
// module path nor its go version from an open go.mod), and some servers see a
// new directory only there. So when a run stages such a file, the server
// is started again for this run alone, on the view its commands see: the
// workspace with the run's staged files (and the editor's unsaved
// buffers), never the user's files. The shared server stays for the other
// runs; this one is stopped at Close.

// AfterBuildFileEdit starts abs's servers again for this run on its staged
// view (the run staged a build file: go.mod, package.json …) and reports
// the new errors of the files the run tracked, as they stand there. Where
// that cannot be, the model is told the server does not see the change.
func (s *Session) AfterBuildFileEdit(ctx context.Context, abs string) Report {
	var r Report
	for _, cfg := range s.servers.ForBuildFile(abs) {
		root := cfg.ProjectRoot(abs, s.workspaceRoot(abs))
		k := serverKey{cfg.Name, root}
		s.mu.Lock()
		s.restartAfter[k] = cfg // to read the file once the user applies it
		_, inUse := s.used[k]
		if !inUse {
			s.wantStaged[k] = true // started so when the run first needs it
		}
		s.mu.Unlock()
		if !inUse {
			continue
		}
		one, err := s.onStagedView(ctx, cfg, root, fmt.Sprintf("Language server: %s restarted for this run on a view holding your staged %s.", cfg.Name, s.rel(abs)))
		if err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("Language server: %s reads %s from disk and could not be restarted on your staged files (%v): its diagnostics do not reflect this change until the user applies it.", cfg.Name, s.rel(abs), err))
			continue
		}
		r.merge(one)
	}
	return r
}

// inNewDir says whether abs, which the run created, is in a folder its
// server (the first of its language, cfg for root) has not seen on disk
// and needs to (gopls, given a new package's file as an open document
// only, said nothing of its errors in 3 runs of 10): not on disk, nor in
// the view of the run's own server.
func (s *Session) inNewDir(abs string) (cfg ServerConfig, root string, ok bool) {
	cfgs, _ := s.servers.For(abs)
	cfgs = s.inProject(cfgs, abs)
	if len(cfgs) == 0 || !cfgs[0].NewDirsOnDisk {
		return ServerConfig{}, "", false
	}
	cfg, dir := cfgs[0], filepath.Dir(abs)
	root = cfg.ProjectRoot(abs, s.workspaceRoot(abs))
	s.mu.Lock()
	u := s.used[serverKey{cfg.Name, root}]
	s.mu.Unlock()
	if u != nil && u.dirs[dir] {
		return ServerConfig{}, "", false
	}
	_, err := os.Lstat(dir)
	return cfg, root, errors.Is(err, fs.ErrNotExist)
}

// onStagedView replaces the session's server cfg of root with one started
// on the run's staged view, says so with note, and judges the files the
// run tracked on it.
func (s *Session) onStagedView(ctx context.Context, cfg ServerConfig, root, note string) (Report, error) {
	u, err := s.startOnStagedView(ctx, cfg, root)
	if err != nil {
		return Report{}, err
	}
	unlock := u.lock()
	defer unlock()
	lang := ""
	if len(cfg.Languages) > 0 {
		lang = cfg.Languages[0]
	}
	r, err := s.judge(ctx, u, lang, s.trackedFor(u))
	if err != nil {
		return Report{}, err
	}
	r.Notes = append([]string{note}, r.Notes...)
	return r, nil
}

// startOnStagedView starts cfg for root on the run's staged view, as the
// session's server of root in place of the one it had, if any.
func (s *Session) startOnStagedView(ctx context.Context, cfg ServerConfig, root string) (*serverUse, error) {
	view, err := s.view.StagedView(ctx, root)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	approve, denied := s.approve, s.denied[cfg.Name]
	s.mu.Unlock()
	if denied != nil {
		return nil, denied
	}
	c, stop, err := s.m.Private(ctx, cfg, root, view, approve)
	var refused *NotApprovedError
	if errors.As(err, &refused) {
		s.mu.Lock()
		s.denied[cfg.Name] = err
		s.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	u := s.newUse(c, cfg, stop)
	u.private = true
	u.dirs = map[string]bool{}
	for _, c := range s.view.Changes() {
		u.dirs[filepath.Dir(c.AbsPath)] = true
	}
	k := serverKey{cfg.Name, root}
	s.mu.Lock()
	prev := s.used[k]
	s.used[k] = u
	delete(s.wantStaged, k)
	if prev != nil && prev.restart && !prev.private {
		s.restartAfter[k] = cfg
	}
	s.mu.Unlock()
	if prev != nil {
		prev.restart = false
		s.giveBack(k, prev)
	}
	return u, nil
}

// sharedFor is the shared server of the run's own u, held (its Use lock
// too) until done, which closes the documents opened on it: the baselines
// of files first judged on u are computed there.
func (s *Session) sharedFor(ctx context.Context, u *serverUse) (shared *serverUse, done func(), err error) {
	root := ""
	s.mu.Lock()
	for k, used := range s.used {
		if used == u {
			root = k.root
		}
	}
	approve := s.approve
	s.mu.Unlock()
	c, release, err := s.m.Client(ctx, u.cfg, root, approve)
	if err != nil {
		return nil, nil, err
	}
	shared = &serverUse{c: c, cfg: u.cfg, release: release, opened: map[string]bool{}, language: maps.Clone(u.language)}
	unlock := c.Use(nil) // only the baseline is asked of it
	return shared, func() {
		for p := range shared.opened {
			_ = c.CloseDocument(context.Background(), p)
		}
		unlock()
		release()
	}, nil
}
