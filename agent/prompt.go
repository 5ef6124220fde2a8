package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/projectfile"
)

const basePrompt = `You are agent-lsp, a coding agent working inside the user's editor.
%WHERE%
You see the files as the editor shows them, unsaved changes included.

Work in steps: look at the code with read_file, list_files and search before you change it.
Change files with edit_file (exact, unique matches) or write_file (whole files).
Your changes are staged, not written: the user reviews them as a diff and accepts or discards them,
so never ask the user to save or apply anything yourself.
%RUNS%
%COMMANDS%

When you are done, answer briefly: what you found or changed, and anything the user should check.`

// What basePrompt says of the workspace with one root, and with several.
const (
	oneRoot         = "The workspace root is %ROOT%; every path you give a tool is relative to it."
	oneRootCommands = "execute_command runs shell commands in the workspace root; commands off the allowlist need the user's approval."
	severalRoots    = `The workspace has several roots:
%ROOTS%
Every relative path you give a tool starts with the name of its root (%EXAMPLE%); absolute paths inside a root work too.
This request comes from %CURRENT%: start there.`
	severalRootsCommands = "execute_command runs shell commands in %CURRENT% unless its cwd names another root (or a directory in one); commands off the allowlist need the user's approval."
)

// maxInstructionsBytes caps AGENTS.md in the system prompt.
const maxInstructionsBytes = 32 << 10

// SystemPrompt is the base prompt for a workspace plus the project's
// instructions (AGENTS.md), when there are any.
func SystemPrompt(root, instructions string) string {
	p := strings.NewReplacer("%WHERE%", oneRoot, "%RUNS%", oneRootCommands).Replace(basePrompt)
	p = strings.NewReplacer("%ROOT%", root, "%COMMANDS%", tools.CommandsSee).Replace(p)
	if strings.TrimSpace(instructions) != "" {
		p += "\n\n## Project instructions (AGENTS.md)\n\n" + instructions
	}
	return p
}

// WorkspacePrompt is the system prompt of a run over w: SystemPrompt with
// one root; with several, the roots by name and the one the run started
// in (its current root), whose AGENTS.md is the project's instructions.
// notice, when not "", tells the user why AGENTS.md was left out or cut
// (see LoadInstructions).
func WorkspacePrompt(w *tools.Workspace) (prompt, notice string) {
	roots, current := w.Roots(), w.Current()
	instructions, notice := LoadInstructions(current.Dir)
	if len(roots) == 1 {
		return SystemPrompt(current.Dir, instructions), notice
	}
	var list strings.Builder
	for _, r := range roots {
		fmt.Fprintf(&list, "- %s/ is %s", r.Name, r.Dir)
		if r == current {
			list.WriteString(" (this request's root)")
		}
		list.WriteByte('\n')
	}
	p := strings.NewReplacer("%WHERE%", severalRoots, "%RUNS%", severalRootsCommands).Replace(basePrompt)
	p = strings.NewReplacer("%ROOTS%", strings.TrimSuffix(list.String(), "\n"), "%EXAMPLE%", current.Name+"/README.md",
		"%CURRENT%", current.Name+"/", "%COMMANDS%", tools.CommandsSee).Replace(p)
	if strings.TrimSpace(instructions) != "" {
		p += "\n\n## Project instructions (" + current.Name + "/AGENTS.md)\n\n" + instructions
	}
	return p, notice
}

// instructionsFile is the project's instructions, at a workspace root.
const instructionsFile = "AGENTS.md"

// LoadInstructions reads AGENTS.md at a workspace root, as every project
// file is read (tools/projectfile): beneath the root, never through a link
// out of it, only a regular file, at most maxInstructionsBytes of it. text
// is "" when there is none or it was refused; notice, for the user, says
// why it was refused or that it was cut ("" when it was read whole or is
// not there). A refused file leaves the run without instructions, never
// without a run.
func LoadInstructions(root string) (text, notice string) {
	data, cut, err := projectfile.Read(root, instructionsFile, maxInstructionsBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", ""
	case err != nil:
		return "", "project instructions left out: " + err.Error()
	case cut:
		return string(data) + "\n(AGENTS.md cut here)",
			fmt.Sprintf("project instructions cut: %s is larger than %d KiB; the model sees its start", filepath.Join(root, instructionsFile), maxInstructionsBytes>>10)
	}
	return string(data), ""
}
