package apply

import (
	"io/fs"
	"os"

	"github.com/agent-lsp/agent-lsp/tools"
)

// openForWrite opens abs for writing, creating it, refusing a final symlink
// or junction (looked at just before: Windows has no O_NOFOLLOW).
func openForWrite(abs string, mode os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return nil, tools.ErrNotRegular
	}
	return os.OpenFile(abs, os.O_WRONLY|os.O_CREATE, mode)
}
