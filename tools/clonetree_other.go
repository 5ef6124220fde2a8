//go:build !darwin

package tools

import "errors"

// cloneTree is macOS's (APFS clones whole trees); elsewhere the view is
// an overlay or a copy, file by file.
func cloneTree(src, dst string) (int, error) { return 0, errors.ErrUnsupported }
