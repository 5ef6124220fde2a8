package tools

import "strings"

// withEnding gives a file's new text the line ending want: text written
// with bare "\n" line breaks (as models write) gets want's; text that
// holds a "\r\n" already, or no line break, or a want of "\n" or "" (a file
// without a dominant ending) is left as it is.
func withEnding(text, want string) string {
	if want != "\r\n" || !strings.Contains(text, "\n") || strings.Contains(text, "\r\n") {
		return text
	}
	return strings.ReplaceAll(text, "\n", "\r\n")
}

// endingFor is the line ending of a file written whole: the one it has
// (its dominant one) when it exists, else the system's for new files.
func endingFor(existing string, exists bool, newFile string) string {
	if exists {
		return dominantEnding(existing)
	}
	return newFile
}
