package langserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
)

// tool adapts a function over a parameter struct to tools.Tool, its
// schema from the struct's tags.
type tool[P any] struct {
	name, description string
	readOnly          bool
	schema            json.RawMessage
	run               func(context.Context, P) (tools.Result, error)
}

func newTool[P any](name, description string, readOnly bool, run func(context.Context, P) (tools.Result, error)) tools.Tool {
	return &tool[P]{name, description, readOnly, tools.SchemaOf[P](), run}
}

func (t *tool[P]) Name() string            { return t.name }
func (t *tool[P]) Description() string     { return t.description }
func (t *tool[P]) Schema() json.RawMessage { return t.schema }
func (t *tool[P]) ReadOnly() bool          { return t.readOnly }
func (t *tool[P]) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var p P
	if err := json.Unmarshal(args, &p); err != nil {
		return tools.Errorf("invalid arguments for %s: %v", t.name, err), nil
	}
	return t.run(ctx, p)
}

type symbolParams struct {
	Symbol string `json:"symbol" jsonschema:"the symbol's name (Foo, or Type.Method)"`
	Path   string `json:"path,omitempty" jsonschema:"a file that declares or uses it; without it the workspace's symbols are searched"`
	Line   int    `json:"line,omitempty" jsonschema:"the 1-based line of path where it appears, when the name is ambiguous"`
}

type symbolsParams struct {
	Path  string `json:"path,omitempty" jsonschema:"a file: its declarations, as an outline"`
	Query string `json:"query,omitempty" jsonschema:"without path: the workspace's declarations whose names match"`
	// Outside adds the declarations the server knows outside the
	// workspace (the standard library, dependencies) after its own.
	Outside bool `json:"outside,omitempty" jsonschema:"with query: also the matching declarations outside the workspace (standard library, dependencies), listed after the workspace's"`
}

type renameParams struct {
	symbolParams
	NewName string `json:"new_name" jsonschema:"the new name"`
}

// maxListed bounds the lines of a definition's or references' answer.
const maxListed = 60

// Tools are the language tools of the run: definition, references and
// symbols (read-only), and rename, which stages its edits.
func (s *Session) Tools() []tools.Tool {
	return []tools.Tool{
		newTool("definition", "Where a symbol is declared, asked of the language server by the symbol's name (no column needed): file:line and the line.", true, s.definition),
		newTool("references", "Every use of a symbol, asked of the language server by its name, grouped by file, with each line.", true, s.references),
		newTool("symbols", "The declarations of a file (path) as an outline, or the workspace's declarations matching query (with outside, also those of the standard library and dependencies, after the workspace's), from the language server.", true, s.symbols),
		newTool("rename", "Rename a symbol everywhere it is used, through the language server: the edits are staged for the user's review like any edit, and the result says any new errors.", false, s.rename),
	}
}

func (s *Session) definition(ctx context.Context, p symbolParams) (tools.Result, error) {
	at, err := s.locate(ctx, p.Symbol, p.Path, p.Line)
	if err != nil {
		return tools.Errorf("definition: %v", err), nil
	}
	unlock, err := s.hold(ctx, at.u, at.abs)
	if err != nil {
		return tools.Errorf("definition: %s: %v", at.u.cfg.Name, err), nil
	}
	locs, err := at.u.c.Definition(ctx, at.abs, at.pos)
	unlock()
	if err != nil {
		return tools.Errorf("definition: %s: %v", at.u.cfg.Name, err), nil
	}
	if len(locs) == 0 {
		return tools.Result{Text: fmt.Sprintf("%s: the language server knows no declaration of %s there.", at.u.cfg.Name, p.Symbol)}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s is declared at:\n", p.Symbol)
	b.WriteString(s.listLocations(locs, false))
	return tools.Result{Text: b.String()}, nil
}

func (s *Session) references(ctx context.Context, p symbolParams) (tools.Result, error) {
	at, err := s.locate(ctx, p.Symbol, p.Path, p.Line)
	if err != nil {
		return tools.Errorf("references: %v", err), nil
	}
	unlock, err := s.hold(ctx, at.u, at.abs)
	if err != nil {
		return tools.Errorf("references: %s: %v", at.u.cfg.Name, err), nil
	}
	locs, err := at.u.c.References(ctx, at.abs, at.pos)
	unlock()
	if err != nil {
		return tools.Errorf("references: %s: %v", at.u.cfg.Name, err), nil
	}
	files := map[string]bool{}
	for _, l := range locs {
		files[l.Path] = true
	}
	text := fmt.Sprintf("%d reference(s) to %s in %d file(s):\n%s", len(locs), p.Symbol, len(files), s.listLocations(locs, true))
	return tools.Result{Text: text}, nil
}

// listLocations writes locations grouped by file, sorted, with each line's
// text, up to maxListed lines.
func (s *Session) listLocations(locs []Location, grouped bool) string {
	sort.Slice(locs, func(i, j int) bool {
		a, b := locs[i], locs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Range.Start.Line < b.Range.Start.Line
	})
	var b strings.Builder
	shown, lastFile := 0, ""
	for _, l := range locs {
		if shown == maxListed {
			fmt.Fprintf(&b, "… and %d more\n", len(locs)-shown)
			break
		}
		abs := l.Path
		rel := s.rel(abs)
		text, _ := s.text(abs)
		line := strings.TrimSpace(lineAt(text, int(l.Range.Start.Line)))
		if grouped {
			if rel != lastFile {
				fmt.Fprintf(&b, "%s\n", rel)
				lastFile = rel
			}
			fmt.Fprintf(&b, "  %d: %s\n", l.Range.Start.Line+1, line)
		} else {
			fmt.Fprintf(&b, "%s:%d: %s\n", rel, l.Range.Start.Line+1, line)
		}
		shown++
	}
	return strings.TrimRight(b.String(), "\n")
}

func (s *Session) symbols(ctx context.Context, p symbolsParams) (tools.Result, error) {
	if p.Path == "" && p.Query == "" {
		return tools.Errorf("symbols: give a path (its outline) or a query (the workspace's matching declarations)"), nil
	}
	var syms []Symbol
	var server string
	if p.Path != "" {
		abs, _, err := s.view.Resolve(p.Path)
		if err != nil {
			return tools.Errorf("symbols: %v", err), nil
		}
		u, _, err := s.server(ctx, abs)
		if err != nil {
			return tools.Errorf("symbols: %v", err), nil
		}
		var unlock func()
		if unlock, err = s.hold(ctx, u, abs); err == nil {
			syms, err = u.c.DocumentSymbols(ctx, abs)
			unlock()
		}
		if err != nil {
			return tools.Errorf("symbols: %s: %v", u.cfg.Name, err), nil
		}
		server = u.cfg.Name
	} else {
		var outside []Symbol
		for _, cfg := range s.workspaceServers() {
			u, _, err := s.server(ctx, s.view.Root()+"/x"+firstExtension(cfg))
			if err != nil {
				continue
			}
			found, err := s.workspaceSymbols(ctx, u, p.Query)
			if err != nil {
				continue
			}
			server = cfg.Name
			for _, sym := range found {
				if _, _, err := s.view.Resolve(sym.Path); err == nil {
					syms = append(syms, sym)
				} else if p.Outside {
					outside = append(outside, sym)
				}
			}
		}
		syms = append(syms, outside...)
	}
	if len(syms) == 0 {
		return tools.Result{Text: "No declarations found."}, nil
	}
	var b strings.Builder
	for i, sym := range syms {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more\n", len(syms)-i)
			break
		}
		where := fmt.Sprintf("line %d", sym.Selection.Start.Line+1)
		if p.Path == "" {
			where = fmt.Sprintf("%s:%d", s.rel(sym.Path), sym.Selection.Start.Line+1)
		}
		indent := ""
		if sym.Container != "" && p.Path != "" {
			indent = "  "
		}
		fmt.Fprintf(&b, "%s%s %s (%s)\n", indent, kindName(sym.Kind), sym.Name, where)
	}
	return tools.Result{Text: fmt.Sprintf("From %s:\n%s", server, strings.TrimRight(b.String(), "\n"))}, nil
}

// kindName is an LSP SymbolKind's word.
func kindName(k int) string {
	names := []string{"", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor",
		"enum", "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object",
		"key", "null", "enum member", "struct", "event", "operator", "type parameter"}
	if k > 0 && k < len(names) {
		return names[k]
	}
	return "symbol"
}

func (s *Session) rename(ctx context.Context, p renameParams) (tools.Result, error) {
	if strings.TrimSpace(p.NewName) == "" {
		return tools.Errorf("rename: new_name is empty"), nil
	}
	at, err := s.locate(ctx, p.Symbol, p.Path, p.Line)
	if err != nil {
		return tools.Errorf("rename: %v", err), nil
	}
	unlock, err := s.hold(ctx, at.u, at.abs)
	if err != nil {
		return tools.Errorf("rename: %s: %v; nothing was staged", at.u.cfg.Name, err), nil
	}
	edit, err := at.u.c.Rename(ctx, at.abs, at.pos, p.NewName)
	var staged []string
	if err == nil {
		staged, err = s.stageEdit(at.u, edit)
	}
	unlock()
	if err != nil {
		return tools.Errorf("rename: %s: %v; nothing was staged", at.u.cfg.Name, err), nil
	}
	if len(staged) == 0 {
		return tools.Errorf("rename: %s proposed no change", at.u.cfg.Name), nil
	}
	text := fmt.Sprintf("Staged: %s renamed to %s in %d file(s): %s. The user will review it before it is applied.", p.Symbol, p.NewName, len(staged), strings.Join(staged, ", "))
	var abs []string
	for _, rel := range staged {
		if a, _, err := s.view.Resolve(rel); err == nil {
			abs = append(abs, a)
		}
	}
	s.track(abs...)
	if report := s.Check(ctx).Text(); report != "" {
		text += "\n\n" + report
	}
	return tools.Result{Text: text}, nil
}

// stageEdit stages a server's WorkspaceEdit into the run's changeset, all
// of it or, when a file is outside the workspace, stale or unreadable,
// none. It returns the staged files' names. u.c.Use's lock is held (or
// the server is asking, on its read loop).
func (s *Session) stageEdit(u *serverUse, edit WorkspaceEdit) ([]string, error) {
	byFile, created, err := edit.byFile(u.c.pathOf)
	if err != nil {
		return nil, err
	}
	enc := u.c.encoding()
	type staged struct{ rel, text string }
	var plan []staged
	for _, abs := range created {
		_, rel, err := s.view.Resolve(abs)
		if err != nil {
			return nil, fmt.Errorf("the edit creates %s, outside the workspace", abs)
		}
		if _, exists := s.text(abs); !exists && byFile[abs] == nil {
			plan = append(plan, staged{rel, ""})
		}
	}
	paths := make([]string, 0, len(byFile))
	for p := range byFile {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, abs := range paths {
		fe := byFile[abs]
		_, rel, err := s.view.Resolve(abs)
		if err != nil {
			return nil, fmt.Errorf("the edit reaches %s, outside the workspace", abs)
		}
		text, ok := u.c.Text(abs)
		if !ok {
			text, _ = s.text(abs)
		} else if now, _ := s.text(abs); now != text {
			return nil, fmt.Errorf("the edit of %s was made on another text than the run's", rel)
		}
		newText, err := applyEdits(text, fe.edits, enc)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", rel, err)
		}
		plan = append(plan, staged{rel, newText})
	}
	var out []string
	for _, st := range plan {
		if _, err := s.view.Stage(st.rel, st.text); err != nil {
			return out, err
		}
		out = append(out, st.rel)
	}
	return out, nil
}

func init() {
	symbolTitle := func(verb string) func(tools.Call) string {
		return func(c tools.Call) string {
			title := verb + " " + c.Code("symbol")
			if c.String("path") != "" {
				title += " in " + c.Path("path")
			}
			return title
		}
	}
	tools.Present("definition", tools.Presentation{Kind: tools.KindSearch, PathArg: "path", LineArg: "line", Title: symbolTitle("Definition of")})
	tools.Present("references", tools.Presentation{Kind: tools.KindSearch, PathArg: "path", LineArg: "line", Title: symbolTitle("References to")})
	tools.Present("symbols", tools.Presentation{Kind: tools.KindSearch, PathArg: "path", Title: func(c tools.Call) string {
		if c.String("path") != "" {
			return "Symbols of " + c.Path("path")
		}
		return "Symbols matching " + c.Code("query")
	}})
	tools.Present("rename", tools.Presentation{Kind: tools.KindEdit, PathArg: "path", LineArg: "line", Title: func(c tools.Call) string {
		return "Rename " + c.Code("symbol") + " to " + c.Code("new_name")
	}})
}
