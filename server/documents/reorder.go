package documents

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"go.lsp.dev/protocol"
)

// Helix before 25.07 sends each didChange from a task of its own, so the
// notifications of a burst of keys may arrive interleaved (…, 17, 27, 18,
// …), each relative to the text of the version before it; and every Helix
// skips version numbers by design (a completion preview bumps the version
// and sends nothing). For a client that may reorder (ClientMayReorder):
//
//   - Until a change has come late on this connection, a change that skips
//     ahead is applied at once: typing after a completion menu waits for
//     nothing. The text before it is kept for reorderWindow; should a
//     version it skipped come meanwhile, the document goes back to that
//     text and its changes are applied in version order, as a new edition
//     (what was read of it in between was never the client's text).
//   - Once one has, a change that skips ahead waits, at most reorderWindow,
//     for the versions before it; readers see the last version in order.
//   - A change at or below the version applied that cannot be put in order
//     so is dropped, and said so: applied to a later text it would scramble
//     it, and move the version back.
//
// Other clients' changes are applied as they come.

// reorderWindow is how long a change that skipped ahead may still be put
// in order: Helix 25.01's late changes come within milliseconds of their
// successors.
const reorderWindow = 50 * time.Millisecond

// change is one didChange notification, with the encoding of its positions.
type change struct {
	params *protocol.DidChangeTextDocumentParams
	enc    Encoding
}

func (c change) version() int32 { return c.params.TextDocument.Version }

// reordering is a document's changes not in order yet, where the client
// may reorder them; the store's lock guards it.
type reordering struct {
	held    []change     // ahead of a missing version, in version order
	release *time.Timer  // applies held once the missing versions did not come in time
	rewind  *rewindPoint // before a change that skipped ahead, while it may be undone
}

// rewindPoint is a document as it was before a change that skipped ahead,
// and the changes applied since.
type rewindPoint struct {
	version int32
	text    []byte
	history editHistory
	applied []change
	until   time.Time
}

// takes says whether v, a version at or below the one applied, can still
// be put in order by going back to p.
func (p *rewindPoint) takes(v int32) bool {
	return p != nil && v > p.version && !slices.ContainsFunc(p.applied, func(c change) bool { return c.version() == v })
}

// ClientMayReorder says whether the client may send a document's changes
// out of order (Helix before 25.07): see above.
func (d *Store) ClientMayReorder(may bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mayReorder = may
}

// changeReordered is change for a client that may reorder; d.mu is held.
// applied says the text changed.
func (d *Store) changeReordered(p string, doc *document, c change) (acceptedSuggestion, applied bool, err error) {
	r := &doc.reorder
	now := time.Now()
	if r.rewind != nil && now.After(r.rewind.until) {
		r.rewind = nil
	}
	v := c.version()
	switch {
	case v <= doc.version:
		d.reorderSeen = true
		if !r.rewind.takes(v) {
			return false, false, fmt.Errorf("didChange for %s: version %d came after version %d was applied; dropped, since applied to that later text it would scramble it",
				c.params.TextDocument.URI, v, doc.version)
		}
		d.opens++
		for _, later := range doc.rewindTo(d.opens) {
			r.insert(later)
		}
		r.insert(c)
		err = doc.applyFollowing()
		d.releaseLater(p, doc)
		return false, true, err
	case v > doc.version+1 && d.reorderSeen:
		r.insert(c)
		d.releaseLater(p, doc)
		return false, false, nil
	case v > doc.version+1 && r.rewind == nil:
		r.rewind = &rewindPoint{version: doc.version, text: bytes.Clone(doc.buf), history: doc.history.clone(), until: now.Add(reorderWindow)}
	}
	acceptedSuggestion, err = doc.apply(c.params, c.enc)
	if err != nil {
		if r.rewind != nil && len(r.rewind.applied) == 0 {
			r.rewind = nil
		}
		return false, false, err
	}
	if r.rewind != nil {
		r.rewind.applied = append(r.rewind.applied, c)
	}
	return acceptedSuggestion, true, doc.applyFollowing()
}

// rewindTo puts the document back as its rewind point has it, as edition
// opened, and returns the changes applied since.
func (doc *document) rewindTo(opened uint64) []change {
	rp := doc.reorder.rewind
	doc.reorder.rewind = nil
	doc.buf, doc.fresh, doc.version, doc.history, doc.opened = rp.text, false, rp.version, rp.history, opened
	return rp.applied
}

// insert holds c in version order.
func (r *reordering) insert(c change) {
	i, _ := slices.BinarySearchFunc(r.held, c.version(), func(h change, v int32) int { return int(h.version() - v) })
	r.held = slices.Insert(r.held, i, c)
}

// applyFollowing applies the held changes that follow the version applied,
// and drops those it has passed. A held change that fails is dropped (its
// notification was answered long ago); the first failure is returned.
func (doc *document) applyFollowing() error {
	r := &doc.reorder
	var first error
	for len(r.held) > 0 && r.held[0].version() <= doc.version+1 {
		h := r.held[0]
		r.held = r.held[1:]
		if h.version() <= doc.version {
			continue
		}
		if _, err := doc.apply(h.params, h.enc); err != nil && first == nil {
			first = err
		}
	}
	if len(r.held) == 0 && r.release != nil {
		r.release.Stop()
		r.release = nil
	}
	return first
}

// releaseLater applies what is held for doc, at p, once reorderWindow has
// passed without the versions it waits for.
func (d *Store) releaseLater(p string, doc *document) {
	if r := &doc.reorder; len(r.held) > 0 && r.release == nil {
		r.release = time.AfterFunc(reorderWindow, func() { d.releaseHeld(p, doc) })
	}
}

// releaseHeld applies the changes held for the document at p, if it is
// still that document, in version order as they are: the versions missing
// before them are taken to be none.
func (d *Store) releaseHeld(p string, doc *document) {
	d.mu.Lock()
	held := doc.reorder.held
	applied := d.byPath[p] == doc && len(held) > 0
	if applied {
		doc.reorder.held, doc.reorder.release = nil, nil
		for _, h := range held {
			if h.version() > doc.version {
				_, _ = doc.apply(h.params, h.enc)
			}
		}
	}
	d.mu.Unlock()
	if applied {
		d.changed(p)
	}
}

// stop drops what is held and the rewind point: the document closed.
func (r *reordering) stop() {
	if r.release != nil {
		r.release.Stop()
	}
	*r = reordering{}
}
