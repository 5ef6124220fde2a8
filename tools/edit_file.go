package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
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

func init() {
	Present("edit_file", Presentation{Kind: KindEdit, PathArg: "path",
		Title: func(c Call) string { return "Edit " + c.Path("path") }})
}

// NewEditFile stages exact-match replacements into the workspace's changeset.
func NewEditFile(w *Workspace) Tool {
	return newTypedTool("edit_file", w.describe(editFileDescription), false, func(ctx context.Context, p editFileParams) (Result, error) {
		f, err := w.Read(p.Path)
		if errors.Is(err, fs.ErrNotExist) && p.OldString == "" {
			c, err := w.Stage(p.Path, withEnding(p.NewString, newFileEnding))
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

// applyEdit replaces p.OldString in text. A line break in old_string matches
// either ending in the file, and new_string takes the ending of the lines it
// replaces, so a CRLF file (or the CRLF part of a mixed file) stays CRLF when
// the model writes plain newlines, as it usually does.
func applyEdit(text string, p editFileParams) (string, Result) {
	if strings.TrimSpace(p.OldString) == "" {
		return "", Errorf("old_string is empty or whitespace only; give the exact text to replace (use write_file to replace the whole file)")
	}
	oldS, newS := toLF(p.OldString), toLF(p.NewString)
	if oldS == newS {
		return "", Errorf("old_string and new_string are the same; nothing to change")
	}
	matches := anyEnding(oldS).FindAllStringIndex(text, -1)
	n := len(matches)
	switch {
	case n == 0:
		return "", Errorf("old_string not found; read the file again and copy the text exactly (indentation included, line numbers excluded)")
	case n > 1 && !p.ReplaceAll:
		return "", Errorf("old_string matches %d places; add surrounding lines to make it unique, or set replace_all", n)
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(text[last:m[0]])
		b.WriteString(strings.ReplaceAll(newS, "\n", lineEnding(text, m[0], m[1])))
		last = m[1]
	}
	b.WriteString(text[last:])
	if p.ReplaceAll {
		return b.String(), Result{Text: fmt.Sprintf("%d replacements", n)}
	}
	return b.String(), Result{Text: "1 replacement"}
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// anyEnding matches s (with LF line breaks) literally, except that each line
// break matches "\n" or "\r\n".
func anyEnding(s string) *regexp.Regexp {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = regexp.QuoteMeta(l)
	}
	return regexp.MustCompile(strings.Join(lines, `\r?\n`))
}

// lineEnding is the line ending for a replacement of text[start:end]: the
// one the matched lines use; for a match without (or with evenly mixed) line
// breaks, the one of the line the match ends on; on a last line without
// one, the file's dominant ending.
func lineEnding(text string, start, end int) string {
	if e := dominantEnding(text[start:end]); e != "" {
		return e
	}
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		if j := end + i; j > 0 && text[j-1] == '\r' {
			return "\r\n"
		}
		return "\n"
	}
	if dominantEnding(text) == "\r\n" {
		return "\r\n"
	}
	return "\n"
}

// dominantEnding is the more frequent line ending of s, or "" on a tie
// (no line break at all included).
func dominantEnding(s string) string {
	crlf := strings.Count(s, "\r\n")
	lf := strings.Count(s, "\n") - crlf
	switch {
	case crlf > lf:
		return "\r\n"
	case lf > crlf:
		return "\n"
	}
	return ""
}
