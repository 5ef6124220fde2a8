package langserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Caps of what one report tells the model.
const (
	maxReportedErrors = 20
	maxReportedFiles  = 5
	// maxTracked bounds the files diagnosed after each edit; maxAffected
	// the files one edit adds (those referring to what it changed), and
	// maxChangedSymbols the symbols whose references are asked.
	maxTracked        = 30
	maxAffected       = 10
	maxChangedSymbols = 8
)

// errorCounts counts a file's errors by what they say, not where: an edit
// above an old error moves it, and it is still not the agent's.
type errorCounts map[string]int

func errorKey(d Diagnostic) string { return d.Source + "\x00" + d.Code + "\x00" + d.Message }

func isError(d Diagnostic) bool { return d.Severity == SeverityError || d.Severity == 0 }

func countErrors(ds []Diagnostic) errorCounts {
	out := errorCounts{}
	for _, d := range ds {
		if isError(d) {
			out[errorKey(d)]++
		}
	}
	return out
}

// newErrors are the errors of ds beyond those the baseline counts.
func newErrors(ds []Diagnostic, base errorCounts) []Diagnostic {
	left := map[string]int{}
	for k, n := range base {
		left[k] = n
	}
	var out []Diagnostic
	for _, d := range ds {
		if !isError(d) {
			continue
		}
		if k := errorKey(d); left[k] > 0 {
			left[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// Report is what the servers said of a set of files against the
// baseline: a verdict of one of three kinds (Verdict).
type Report struct {
	Checked int          // files whose diagnostics are known
	New     []Diagnostic // new errors, by file then line
	Unknown []Unknown    // what is not known, and why
	Notes   []string     // servers that could not be used, said once to the model
}

// Unknown is a file, or what an edit touched, whose errors are not known.
type Unknown struct {
	What string // the workspace's name of a file, or what was not known
	Why  string
}

// Verdict is the kind of a report's answer.
type Verdict int

const (
	NoVerdict   Verdict = iota // nothing was checked
	NewErrors                  // the new errors, by file and line
	NoNewErrors                // every file checked, none new
	NotKnown                   // something is not known: never a clean verdict
)

// Verdict is r's answer: the new errors where there are any; else "not
// known" where anything is; else no new errors where files were checked.
func (r Report) Verdict() Verdict {
	switch {
	case len(r.New) > 0:
		return NewErrors
	case len(r.Unknown) > 0:
		return NotKnown
	case r.Checked > 0:
		return NoNewErrors
	}
	return NoVerdict
}

// Text is the report for the model and the reviewer: notes, then the
// verdict.
func (r Report) Text() string {
	var b strings.Builder
	for _, n := range r.Notes {
		b.WriteString(n + "\n")
	}
	switch r.Verdict() {
	case NewErrors:
		r.writeNew(&b)
		if len(r.Unknown) > 0 {
			fmt.Fprintf(&b, "Language server: not known beyond these for %s.\n", r.unknownText())
		}
	case NotKnown:
		fmt.Fprintf(&b, "Language server: not known for %s.\n", r.unknownText())
	case NoNewErrors:
		fmt.Fprintf(&b, "Language server: no new errors (%d file(s) checked).\n", r.Checked)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (r Report) writeNew(b *strings.Builder) {
	files := map[string]bool{}
	for _, d := range r.New {
		files[d.Path] = true
	}
	fmt.Fprintf(b, "Language server: %d new error(s) in %d file(s) (errors from before this run are left out):\n", len(r.New), len(files))
	shown, shownFiles := 0, []string{}
	for _, d := range r.New {
		if shown == maxReportedErrors || !slices.Contains(shownFiles, d.Path) && len(shownFiles) == maxReportedFiles {
			continue
		}
		if !slices.Contains(shownFiles, d.Path) {
			shownFiles = append(shownFiles, d.Path)
		}
		shown++
		src := ""
		if d.Source != "" {
			src = " [" + d.Source + "]"
		}
		fmt.Fprintf(b, "  %s:%d:%d: %s%s\n", d.Path, d.Range.Start.Line+1, d.Range.Start.Character+1, oneLine(d.Message), src)
	}
	if more := len(r.New) - shown; more > 0 {
		fmt.Fprintf(b, "  … and %d more\n", more)
	}
}

// unknownText lists what is not known, grouped by why.
func (r Report) unknownText() string {
	var whys []string
	what := map[string][]string{}
	for _, u := range r.Unknown {
		if _, ok := what[u.Why]; !ok {
			whys = append(whys, u.Why)
		}
		if !slices.Contains(what[u.Why], u.What) {
			what[u.Why] = append(what[u.Why], u.What)
		}
	}
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = strings.Join(what[why], ", ") + ": " + why
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// diagnose gives each file of files (one server's) a new version of the
// run's view and reads its diagnostics; with originals, the documents
// hold what they were before the run. Diagnostics not known are listed
// with why; a file whose package or project the server did not load has
// its diagnostics (what they show is still so) and why in unloaded. u's
// lock is held.
func (s *Session) diagnose(ctx context.Context, u *serverUse, lang string, files []string, originals bool) (out map[string][]Diagnostic, unloaded map[string]string, unknown []Unknown, err error) {
	versions, err := s.sync(ctx, u, lang, files, true, originals)
	if err != nil {
		return nil, nil, nil, err
	}
	var mu sync.Mutex
	out, unloaded = map[string][]Diagnostic{}, map[string]string{}
	var wg sync.WaitGroup
	for _, p := range files {
		wg.Go(func() {
			ds, notLoaded, why := s.diagnoseOne(ctx, u, p, versions[p])
			mu.Lock()
			defer mu.Unlock()
			if why != "" {
				unknown = append(unknown, Unknown{s.rel(p), why})
				return
			}
			for i := range ds {
				ds[i].Path = s.rel(p)
			}
			out[p] = ds
			if notLoaded != "" {
				unloaded[p] = notLoaded
			}
		})
	}
	wg.Wait()
	sort.Slice(unknown, func(i, j int) bool { return unknown[i].What < unknown[j].What })
	return out, unloaded, unknown, nil
}

// diagnoseOne is p's diagnostics at version and, when the server did not
// load p's package or project, why not; or why they are not known.
func (s *Session) diagnoseOne(ctx context.Context, u *serverUse, p string, version int32) (ds []Diagnostic, notLoaded, unknown string) {
	ds, err := u.c.Diagnostics(ctx, p, version)
	switch {
	case errors.Is(err, ErrNotKnown):
		return nil, "", fmt.Sprintf("%s did not say for the text sent", u.cfg.Name)
	case err != nil:
		return nil, "", fmt.Sprintf("%s: %v", u.cfg.Name, err)
	}
	notLoaded, err = s.notLoaded(ctx, u, p, ds)
	if err != nil {
		return nil, "", fmt.Sprintf("%s could not say whether it loaded it: %v", u.cfg.Name, err)
	}
	return ds, notLoaded, ""
}

// notLoaded says why u's server has not loaded p's package or project,
// "" when it has.
func (s *Session) notLoaded(ctx context.Context, u *serverUse, p string, ds []Diagnostic) (string, error) {
	if u.cfg.Loaded != LoadedByPyrightConfig {
		return u.c.notLoaded(ctx, p, ds)
	}
	root := u.cfg.ProjectRoot(p, s.workspaceRoot(p))
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", err
	}
	read := func(name string) (string, bool) { return s.text(filepath.Join(root, name)) }
	return pyrightNotLoaded(read, filepath.ToSlash(rel)), nil
}

// ensureBaseline diagnoses the files of files without a baseline as they
// were before the run (every document sent as it was), and keeps that.
// u.c.Use's lock is held.
func (s *Session) ensureBaseline(ctx context.Context, u *serverUse, lang string, files []string) error {
	s.mu.Lock()
	var missing []string
	for _, p := range files {
		if _, ok := s.baseline[p]; !ok {
			missing = append(missing, p)
		}
	}
	s.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	on := u
	if u.private {
		// Its view holds the run's build files: what was broken before the
		// run is what the shared server, on the workspace, says.
		shared, done, err := s.sharedFor(ctx, u)
		if err != nil {
			return err
		}
		defer done()
		on = shared
	}
	base, _, _, err := s.diagnose(ctx, on, lang, missing, true)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range missing {
		if ds, ok := base[p]; ok {
			s.baseline[p] = countErrors(ds)
		} else if _, existed := s.original(p); !existed {
			s.baseline[p] = errorCounts{} // a file the run created had no errors
		}
		// Otherwise the baseline is not known: asked again next time.
	}
	return nil
}

// track adds files to those diagnosed after each edit.
func (s *Session) track(files ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range files {
		if !slices.Contains(s.tracked, p) && len(s.tracked) < maxTracked {
			s.tracked = append(s.tracked, p)
		}
	}
}

// trackedFor are the tracked files that server key serves.
func (s *Session) trackedFor(u *serverUse) []string {
	s.mu.Lock()
	tracked := slices.Clone(s.tracked)
	s.mu.Unlock()
	var out []string
	for _, p := range tracked {
		cfgs, _ := s.servers.For(p)
		if slices.ContainsFunc(cfgs, func(c ServerConfig) bool { return c.Name == u.cfg.Name }) {
			out = append(out, p)
		}
	}
	return out
}

// judge diagnoses files on u and reports their new errors.
func (s *Session) judge(ctx context.Context, u *serverUse, lang string, files []string) (Report, error) {
	if err := s.ensureBaseline(ctx, u, lang, files); err != nil {
		return Report{}, err
	}
	now, unloaded, unknown, err := s.diagnose(ctx, u, lang, files, false)
	if err != nil {
		return Report{}, err
	}
	r := Report{Unknown: unknown}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range files {
		ds, ok := now[p]
		if !ok {
			continue
		}
		base, known := s.baseline[p]
		if !known {
			r.Unknown = append(r.Unknown, Unknown{s.rel(p), "its errors before the run are not known"})
			continue
		}
		r.New = append(r.New, newErrors(ds, base)...)
		if why, ok := unloaded[p]; ok {
			// What it shows is so, but its silence proves nothing.
			r.Unknown = append(r.Unknown, Unknown{s.rel(p), why})
			continue
		}
		r.Checked++
	}
	sort.SliceStable(r.New, func(i, j int) bool {
		a, b := r.New[i], r.New[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Range.Start.Line < b.Range.Start.Line
	})
	return r, nil
}

// merge adds o to r.
func (r *Report) merge(o Report) {
	r.Checked += o.Checked
	r.New = append(r.New, o.New...)
	r.Unknown = append(r.Unknown, o.Unknown...)
	r.Notes = append(r.Notes, o.Notes...)
}
