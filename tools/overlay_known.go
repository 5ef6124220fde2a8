package tools

// KnownOverlay is an Overlay whose Buffer is costly: each call asks the
// editor (a round trip, and for some editors opening the file as a buffer),
// as ACP's fs/read_text_file does. Reads of one file still go through
// Buffer; scans over many files (search) ask Known instead, which answers
// only from the buffers the overlay already holds without asking, and disk
// serves the rest.
type KnownOverlay interface {
	Overlay
	// Known returns the buffer's text when the overlay has it at hand.
	Known(absPath string) (text string, version int32, ok bool)
}

// scanBuffer is the open buffer of abs for a scan over many files: Known
// where asking is costly, Buffer otherwise.
func scanBuffer(o Overlay, abs string) (string, bool) {
	if k, ok := o.(KnownOverlay); ok {
		text, _, ok := k.Known(abs)
		return text, ok
	}
	text, _, ok := o.Buffer(abs)
	return text, ok
}
