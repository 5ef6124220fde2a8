package langserver

import (
	"context"
	"encoding/json"

	"github.com/agent-lsp/agent-lsp/tools"
)

// pathArg is the path argument of the tools a Session wraps.
type pathArg struct {
	Path string `json:"path"`
}

// wrapped is a tool of the run's with the Session's part around it.
type wrapped struct {
	tools.Tool
	run func(ctx context.Context, args json.RawMessage) (tools.Result, error)
}

func (w wrapped) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	return w.run(ctx, args)
}

// CheckingEdits wraps edit_file or write_file: after a staged change the
// result says the new errors it brought, in the file and in those that
// refer to what it changed.
func (s *Session) CheckingEdits(t tools.Tool) tools.Tool {
	return wrapped{Tool: t, run: func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		var p pathArg
		_ = json.Unmarshal(args, &p)
		abs, _, err := s.view.Resolve(p.Path)
		if err == nil && !s.Handles(abs) && len(s.servers.ForBuildFile(abs)) > 0 {
			res, err := t.Execute(ctx, args)
			if err != nil || res.IsError {
				return res, err
			}
			if report := s.AfterBuildFileEdit(ctx, abs).Text(); report != "" {
				res.Text += "\n\n" + report
			}
			return res, nil
		}
		if err != nil || !s.Handles(abs) {
			return t.Execute(ctx, args)
		}
		before, _ := s.text(abs)
		res, err := t.Execute(ctx, args)
		if err != nil || res.IsError {
			return res, err
		}
		if report := s.AfterEdit(ctx, abs, before).Text(); report != "" {
			res.Text += "\n\n" + report
		}
		return res, nil
	}}
}

// WarmingOnRead wraps read_file: reading a file of a language starts its
// server, without waiting, so that it is warm for the first edit.
func (s *Session) WarmingOnRead(t tools.Tool) tools.Tool {
	return wrapped{Tool: t, run: func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		var p pathArg
		_ = json.Unmarshal(args, &p)
		if abs, _, err := s.view.Resolve(p.Path); err == nil {
			s.Warm(abs)
		}
		return t.Execute(ctx, args)
	}}
}
