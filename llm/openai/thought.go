package openai

import "sync"

// opensThought holds the models (by base URL and model) whose answers came
// with a closing think tag alone: their template opens the thought in the
// prompt, so their next streams are read as reasoning until that tag. It
// is a fact of the model and its server, not of one run (providers are
// built per run), so it lives as long as the process. Bounded: settings
// may name models without end.
var opensThought = learned{m: map[string]bool{}}

const learnedLimit = 256

type learned struct {
	mu sync.Mutex // guards m
	m  map[string]bool
}

func (l *learned) is(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[key]
}

func (l *learned) set(key string, v bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !v:
		delete(l.m, key)
	case len(l.m) < learnedLimit:
		l.m[key] = true
	}
}
