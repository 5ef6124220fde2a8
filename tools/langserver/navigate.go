package langserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// place is a symbol found by name: the server that knows it, the file and
// the position of its name there.
type place struct {
	u   *serverUse
	abs string
	pos protocol.Position
}

// locate finds the symbol name: in path, on line (1-based) when given,
// else at its declaration there, else its first use; without path,
// through the servers' workspace symbols. The error is for the model.
func (s *Session) locate(ctx context.Context, name, path string, line int) (place, error) {
	if path == "" {
		return s.locateAnywhere(ctx, name)
	}
	abs, _, err := s.view.Resolve(path)
	if err != nil {
		return place{}, err
	}
	u, _, err := s.server(ctx, abs)
	if err != nil {
		return place{}, err
	}
	text, ok := s.text(abs)
	if !ok {
		return place{}, fmt.Errorf("%s: no such file", path)
	}
	unlock, err := s.hold(ctx, u, abs)
	if err != nil {
		return place{}, err
	}
	u.c.Prepare(ctx, abs)
	var syms []Symbol
	if line <= 0 {
		syms, _ = u.c.DocumentSymbols(ctx, abs)
	}
	unlock()
	enc := u.c.encoding()
	if line <= 0 {
		for _, sym := range syms {
			if symbolNamed(sym, name) {
				return place{u, abs, nameStart(text, sym, name, enc)}, nil
			}
		}
	}
	off, err := findWord(text, name, line)
	if err != nil {
		return place{}, fmt.Errorf("%s: %v", path, err)
	}
	return place{u, abs, positionOf(text, off, enc)}, nil
}

// symbolNamed matches "Name", "Type.Name" and gopls's "(*Type).Name".
func symbolNamed(sym Symbol, name string) bool {
	n := strings.NewReplacer("(*", "", "(", "", ")", "").Replace(sym.Name)
	return n == name || strings.HasSuffix(n, "."+name) || sym.Container != "" && sym.Container+"."+n == name
}

// nameStart is where name starts in sym's selection (a method's
// selection may span its receiver).
func nameStart(text string, sym Symbol, name string, enc encoding) protocol.Position {
	start := offsetOf(text, sym.Selection.Start, enc)
	end := offsetOf(text, sym.Selection.End, enc)
	short := name[strings.LastIndexByte(name, '.')+1:]
	if i := strings.Index(text[start:max(end, start)], short); i >= 0 {
		return positionOf(text, start+i, enc)
	}
	return sym.Selection.Start
}

// findWord is the offset of name as a whole word in text: on line
// (1-based) when given, the nearest line within 3 of it otherwise; else
// the first.
func findWord(text, name string, line int) (int, error) {
	short := name[strings.LastIndexByte(name, '.')+1:]
	re, err := regexp.Compile(`(^|[^\w$])(` + regexp.QuoteMeta(short) + `)($|[^\w$])`)
	if err != nil {
		return 0, err
	}
	if line > 0 {
		for d := 0; d <= 3; d++ {
			for _, l := range []int{line - d, line + d} {
				if l < 1 {
					continue
				}
				start := lineStart(text, l-1)
				if m := re.FindStringSubmatchIndex(lineAt(text, l-1)); m != nil {
					return start + m[4], nil
				}
			}
		}
		return 0, fmt.Errorf("%s is not on line %d (nor within 3 lines of it)", short, line)
	}
	if m := re.FindStringSubmatchIndex(text); m != nil {
		return m[4], nil
	}
	return 0, fmt.Errorf("%s does not appear in it", short)
}

// locateAnywhere asks the servers of the workspace's languages for the
// symbol's declaration.
func (s *Session) locateAnywhere(ctx context.Context, name string) (place, error) {
	short := name[strings.LastIndexByte(name, '.')+1:]
	var whys []string
	for _, cfg := range s.workspaceServers() {
		probe := filepath.Join(s.view.Root(), "x"+firstExtension(cfg))
		u, _, err := s.server(ctx, probe)
		if err != nil {
			whys = append(whys, err.Error())
			continue
		}
		syms, err := s.workspaceSymbols(ctx, u, short)
		if err != nil {
			whys = append(whys, err.Error())
			continue
		}
		for _, sym := range syms {
			abs := sym.Path
			if !symbolNamed(sym, name) || !s.serves(u, abs) {
				continue
			}
			text, ok := s.text(abs)
			if !ok {
				continue
			}
			return place{u, abs, nameStart(text, sym, name, u.c.encoding())}, nil
		}
	}
	if len(whys) > 0 {
		return place{}, fmt.Errorf("%s not found (%s); give the path of a file that uses it", name, strings.Join(whys, "; "))
	}
	return place{}, fmt.Errorf("%s not found in the workspace's symbols; give the path of a file that uses it", name)
}

// workspaceSymbols asks u's server for the declarations matching query,
// its documents the run's view.
func (s *Session) workspaceSymbols(ctx context.Context, u *serverUse, query string) ([]Symbol, error) {
	unlock, err := s.hold(ctx, u, "")
	if err != nil {
		return nil, err
	}
	defer unlock()
	return u.c.WorkspaceSymbols(ctx, query)
}

// workspaceServers are the servers whose root markers the workspace's
// root holds, then those already in use.
func (s *Session) workspaceServers() []ServerConfig {
	var out []ServerConfig
	s.mu.Lock()
	for _, u := range s.used {
		out = append(out, u.cfg)
	}
	s.mu.Unlock()
	for _, cfg := range s.servers {
		if cfg.Disabled || slices.ContainsFunc(out, func(c ServerConfig) bool { return c.Name == cfg.Name }) {
			continue
		}
		for _, m := range cfg.RootMarkers {
			if fi, err := os.Lstat(filepath.Join(s.view.Root(), m)); err == nil && !fi.IsDir() {
				out = append(out, cfg)
				break
			}
		}
	}
	return out
}

// firstExtension is one extension of cfg's files, to pick it by a path.
func firstExtension(cfg ServerConfig) string {
	exts := make([]string, 0, len(cfg.Extensions))
	for e := range cfg.Extensions {
		exts = append(exts, e)
	}
	slices.Sort(exts)
	if len(exts) == 0 {
		return ""
	}
	return exts[0]
}
