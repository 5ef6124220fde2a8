package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed edit_file.md
var editFileDescription string

type editFileParams struct {
	Path       string `json:"path" jsonschema:"file path, relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"replacement text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of requiring a unique match"`
}

// NewEditFile stages exact-match replacements into the workspace's changeset.
func NewEditFile(w *Workspace) Tool {
	return newTypedTool("edit_file", editFileDescription, false, func(ctx context.Context, p editFileParams) (Result, error) {
		f, err := w.Read(p.Path)
		if errors.Is(err, fs.ErrNotExist) && p.OldString == "" {
			c, err := w.Stage(p.Path, p.NewString)
			if err != nil {
				return pathError(err), nil
			}
			return Result{Text: fmt.Sprintf("Staged: %s created.%s", c.Path, sensitiveNote(c)), Data: c}, nil
		}
		if err != nil {
			return pathError(err), nil
		}
		newText, res := applyEdit(f.Text, p)
		if res.IsError {
			res.Text = f.Path + ": " + res.Text
			return res, nil
		}
		c, err := w.Stage(p.Path, newText)
		if err != nil {
			return pathError(err), nil
		}
		res.Data = c
		res.Text = fmt.Sprintf("Staged: %s edited (%s).%s", c.Path, res.Text, sensitiveNote(c))
		return res, nil
	})
}

// applyEdit replaces p.OldString in text. A CRLF file stays CRLF: when the
// model writes plain newlines (as it usually does), they are converted first.
func applyEdit(text string, p editFileParams) (string, Result) {
	if strings.TrimSpace(p.OldString) == "" {
		return "", Errorf("old_string is empty or whitespace only; give the exact text to replace (use write_file to replace the whole file)")
	}
	oldS, newS := p.OldString, p.NewString
	if strings.Contains(text, "\r\n") && !strings.Contains(oldS, "\r\n") {
		oldS = strings.ReplaceAll(oldS, "\n", "\r\n")
		newS = strings.ReplaceAll(strings.ReplaceAll(newS, "\r\n", "\n"), "\n", "\r\n")
	}
	if oldS == newS {
		return "", Errorf("old_string and new_string are the same; nothing to change")
	}
	n := strings.Count(text, oldS)
	switch {
	case n == 0:
		return "", Errorf("old_string not found; read the file again and copy the text exactly (indentation included, line numbers excluded)")
	case n > 1 && !p.ReplaceAll:
		return "", Errorf("old_string matches %d places; add surrounding lines to make it unique, or set replace_all", n)
	}
	if p.ReplaceAll {
		return strings.ReplaceAll(text, oldS, newS), Result{Text: fmt.Sprintf("%d replacements", n)}
	}
	return strings.Replace(text, oldS, newS, 1), Result{Text: "1 replacement"}
}
