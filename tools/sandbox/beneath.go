package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// ErrLinkInView is returned when a path in a view passes through a symlink
// or something else that is not a directory, which a command made, and it
// could not be replaced by a directory.
var ErrLinkInView = errors.New("a command replaced a directory of this path with a link or a file in the commands' view")

// splitBeneath checks rel (slash-separated, relative) and returns its parts.
func splitBeneath(rel string) ([]string, error) {
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("path %q is not a plain relative path", rel)
		}
	}
	return parts, nil
}
