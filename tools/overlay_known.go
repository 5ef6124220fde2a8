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

// BufferLister is an Overlay that can say which buffers it holds, so that
// commands run on what the editor shows: the command view adds every open
// buffer whose text differs from disk (an unsaved one) below the staged
// changes.
type BufferLister interface {
	Overlay
	// OpenBuffers lists the absolute paths of the buffers at hand.
	OpenBuffers() []string
}

// unsavedText is the staged or open-buffer text of a file, when it has one
// (of a KnownOverlay, only the buffers it holds: a search must not ask the
// editor for every file).
func (v *View) unsavedText(abs, rel string) (string, bool) {
	if f, staged := v.changeset.staged(rel); staged {
		return f.Text, true
	}
	if v.overlay != nil {
		return scanBuffer(v.overlay, abs)
	}
	return "", false
}

// UnsavedBuffers are the editor's open buffers in the roots whose text
// differs from disk and which the run has not staged (nil where the
// overlay cannot list its buffers): what a process reading the workspace
// from disk would miss of the run's view.
func (v *View) UnsavedBuffers() []Change { return v.unsavedBuffers(v.changeset.Changes()) }

// unsavedBuffers are the editor's open buffers in the roots whose text
// is not what disk holds, and which no staged change covers, as changes
// for the command views (never for the proposal).
func (v *View) unsavedBuffers(staged []Change) []Change {
	lister, ok := v.overlay.(BufferLister)
	if !ok {
		return nil
	}
	covered := make(map[string]bool, len(staged))
	for _, c := range staged {
		covered[c.Path] = true
	}
	var out []Change
	for _, abs := range lister.OpenBuffers() {
		real, rel, err := v.roots.Resolve(abs)
		if err != nil || covered[rel] {
			continue // outside the workspace, or staged over
		}
		text, ok := scanBuffer(v.overlay, real)
		if !ok {
			continue
		}
		if disk, err := ReadRegular(real); err == nil && string(disk) == text {
			continue // saved
		}
		out = append(out, Change{Path: rel, AbsPath: real, New: text})
	}
	return out
}

// BufferWatcher is an Overlay that says when a buffer changes, so that
// what follows the run's view (its language servers) follows the editor
// as the user types, not only at the run's next read.
type BufferWatcher interface {
	Overlay
	// WatchBuffers calls changed with a buffer's absolute path after each
	// change of it, until stop; changed must return at once (it runs on
	// the editor's notification).
	WatchBuffers(changed func(abs string)) (stop func())
}

// WatchBuffers calls changed after each change of an editor buffer, until
// stop; ok is false (and nothing is called) when the overlay cannot say.
func (v *View) WatchBuffers(changed func(abs string)) (stop func(), ok bool) {
	w, ok := v.overlay.(BufferWatcher)
	if !ok {
		return func() {}, false
	}
	return w.WatchBuffers(changed), true
}
