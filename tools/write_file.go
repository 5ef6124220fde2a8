package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
)

//go:embed write_file.md
var writeFileDescription string

type writeFileParams struct {
	Path    string `json:"path" jsonschema:"file path, relative to the workspace root"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

func init() {
	Present("write_file", Presentation{Kind: KindEdit, PathArg: "path",
		Title: func(c Call) string { return "Write " + c.Path("path") }})
}

// NewWriteFile stages whole-file writes into the workspace's changeset. The
// file keeps its line ending (CRLF stays CRLF); a new one gets the
// system's (CRLF on Windows).
func NewWriteFile(w *Workspace) Tool {
	return newTypedTool("write_file", w.describe(writeFileDescription), false, func(ctx context.Context, p writeFileParams) (Result, error) {
		current, err := w.Read(p.Path)
		content := withEnding(p.Content, endingFor(current.Text, err == nil, newFileEnding))
		c, err := w.Stage(p.Path, content)
		if err != nil {
			return pathError(err), nil
		}
		what := "updated"
		if !c.Existed {
			what = "created"
		}
		lines := strings.Count(content, "\n")
		if content != "" && !strings.HasSuffix(content, "\n") {
			lines++
		}
		return Result{Text: fmt.Sprintf("Staged: %s %s (%d lines). The user will review it before it is applied.%s", c.Path, what, lines, sensitiveNote(c)), Data: c}, nil
	})
}

// sensitiveNote tells the model when the user must approve a file
// explicitly, so that its answer says why the file needed changing.
func sensitiveNote(c Change) string {
	if why, ok := c.Sensitive(); ok {
		return fmt.Sprintf(" Note: %s changes %s; the user must approve it explicitly, so say why in your answer.", c.Path, why)
	}
	return ""
}
