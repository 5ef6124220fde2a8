package tools

// newFileEnding is the line ending of a file the agent creates: Windows's.
const newFileEnding = "\r\n"
