package agent

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
)

const basePrompt = `You are agent-lsp, a coding agent working inside the user's editor.
The workspace root is %ROOT%; every path you give a tool is relative to it.
You see the files as the editor shows them, unsaved changes included.

Work in steps: look at the code with read_file, list_files and search before you change it.
Change files with edit_file (exact, unique matches) or write_file (whole files).
Your changes are staged, not written: the user reviews them as a diff and accepts or discards them,
so never ask the user to save or apply anything yourself.
execute_command runs shell commands in the workspace root; commands off the allowlist need the user's approval.
%COMMANDS%

When you are done, answer briefly: what you found or changed, and anything the user should check.`

// maxInstructionsBytes caps AGENTS.md in the system prompt.
const maxInstructionsBytes = 32 << 10

// SystemPrompt is the base prompt for a workspace plus the project's
// instructions (AGENTS.md), when there are any.
func SystemPrompt(root, instructions string) string {
	p := strings.NewReplacer("%ROOT%", root, "%COMMANDS%", tools.CommandsSee).Replace(basePrompt)
	if strings.TrimSpace(instructions) != "" {
		p += "\n\n## Project instructions (AGENTS.md)\n\n" + instructions
	}
	return p
}

// LoadInstructions reads AGENTS.md at the workspace root; "" when there is none.
func LoadInstructions(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "AGENTS.md"))
	if err != nil {
		return ""
	}
	if len(data) > maxInstructionsBytes {
		data = append(data[:maxInstructionsBytes], "\n(AGENTS.md cut here)"...)
	}
	return string(data)
}
