package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed read_file.md
var readFileDescription string

const (
	defaultReadLimit = 2000    // lines per read
	maxReadBytes     = 100_000 // bytes of text per read
)

type readFileParams struct {
	Path   string `json:"path" jsonschema:"file path, relative to the workspace root"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line to start at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"maximum number of lines to return (default 2000)"`
}

// NewReadFile reads files through the workspace view.
func NewReadFile(w *Workspace) Tool {
	return newTypedTool("read_file", readFileDescription, true, func(ctx context.Context, p readFileParams) (Result, error) {
		f, err := w.Read(p.Path)
		if err != nil {
			return pathError(err), nil
		}
		return numberedLines(f, p.Offset, p.Limit), nil
	})
}

// pathError turns a workspace error into an observation the model can act on.
func pathError(err error) Result {
	switch {
	case errors.Is(err, ErrOutsideWorkspace):
		return Errorf("%v: only paths inside the workspace can be used", err)
	case errors.Is(err, fs.ErrNotExist):
		return Errorf("%v: no such file (use list_files to see what exists)", err)
	}
	return Errorf("%v", err)
}

func numberedLines(f File, offset, limit int) Result {
	if strings.IndexByte(f.Text[:min(len(f.Text), 8000)], 0) >= 0 {
		return Errorf("%s is a binary file", f.Path)
	}
	if offset < 1 {
		offset = 1
	}
	if limit <= 0 {
		limit = defaultReadLimit
	}
	lines := strings.SplitAfter(f.Text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	total := len(lines)
	if total == 0 {
		return Result{Text: fmt.Sprintf("(%s is empty)", f.Path), Data: f}
	}
	if offset > total {
		return Errorf("%s has %d lines; offset %d is past the end", f.Path, total, offset)
	}
	var b strings.Builder
	last := offset - 1
	for i := offset - 1; i < total && i < offset-1+limit; i++ {
		line := strings.TrimRight(lines[i], "\r\n")
		if b.Len()+len(line) > maxReadBytes && i > offset-1 {
			break
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, line)
		last = i + 1
	}
	if last < total {
		fmt.Fprintf(&b, "(showing lines %d-%d of %d; call read_file with offset=%d to read on)\n", offset, last, total, last+1)
	}
	return Result{Text: b.String(), Data: f}
}
