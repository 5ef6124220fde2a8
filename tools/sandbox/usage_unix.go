//go:build unix

package sandbox

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

// usage adds up the blocks the files under dirs take, links not followed.
func usage(dirs []string) int64 {
	var total int64
	for _, d := range dirs {
		if d == "" {
			continue
		}
		filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if fi, err := e.Info(); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					total += st.Blocks * 512
				}
			}
			return nil
		})
	}
	return total
}
