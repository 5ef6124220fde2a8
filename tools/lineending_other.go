//go:build !windows

package tools

// newFileEnding is the line ending of a file the agent creates.
const newFileEnding = "\n"
