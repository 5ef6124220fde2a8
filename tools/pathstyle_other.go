//go:build !windows && !darwin

package tools

// hostPaths: Linux's and the BSDs' file systems tell case apart (a
// case-folding volume is found by the workspace: caseInsensitive).
var hostPaths = pathStyle{}
