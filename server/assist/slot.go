package assist

import "sync"

// Slot holds a feature's model client: built on first use, and again when
// the settings it was built from change. It counts the calls it hands the
// client out for. The zero value is empty and ready; it has its own lock.
type Slot[T any] struct {
	mu       sync.Mutex // guards all below
	client   T
	builtFor string // the settings key client was built from
	built    bool
	calls    int
}

// Get is the client for the settings named by key, built by build when
// there is none for them; a failed build leaves the slot as it was.
func (s *Slot[T]) Get(key string, build func() (T, error)) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.built || s.builtFor != key {
		client, err := build()
		if err != nil {
			var none T
			return none, err
		}
		s.client, s.builtFor, s.built = client, key, true
	}
	s.calls++
	return s.client, nil
}

// Calls is how many times Get handed the client out.
func (s *Slot[T]) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}
