package assist

import (
	"context"
	"errors"
	"testing"

	"go.lsp.dev/uri"
)

func TestSlotBuildsOncePerSettings(t *testing.T) {
	var s Slot[string]
	builds := 0
	build := func(name string) func() (string, error) {
		return func() (string, error) { builds++; return name, nil }
	}
	for _, key := range []string{"a", "a", "b", "b"} {
		if got, err := s.Get(key, build("client-"+key)); err != nil || got != "client-"+key {
			t.Fatalf("%s: %q %v", key, got, err)
		}
	}
	if _, err := s.Get("c", func() (string, error) { return "", errors.New("no such model") }); err == nil {
		t.Fatal("a failed build was taken")
	}
	if got, _ := s.Get("b", build("unused")); builds != 2 || got != "client-b" || s.Calls() != 5 {
		t.Fatalf("%d builds, %q, %d calls", builds, got, s.Calls())
	}
}

func TestPauseAfterFailuresInARow(t *testing.T) {
	var p Pause
	ctx := context.Background()
	failed := errors.New("down")
	p.Settle(ctx, failed)
	p.Settle(ctx, failed)
	p.Settle(ctx, nil) // a success ends the run
	for range FailuresBeforePause - 1 {
		p.Settle(ctx, failed)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	p.Settle(cancelled, context.Canceled) // counts for nothing
	if p.Paused() || !p.Until().IsZero() {
		t.Fatal("paused before three failures in a row")
	}
	p.Settle(ctx, failed)
	if !p.Paused() || p.Until().IsZero() {
		t.Fatal("not paused after three failures in a row")
	}
}

func TestLatestCancelsTheOneBeforeAndEnds(t *testing.T) {
	var l Latest
	u := uri.File("/tmp/agent-lsp-assist/a.go")
	first, done1 := l.Begin(context.Background(), u)
	second, done2 := l.Begin(context.Background(), u)
	if first.Err() == nil || second.Err() != nil {
		t.Fatal("the newer request did not supersede the older")
	}
	done1() // the older ending must not end the newer
	if second.Err() != nil {
		t.Fatal("ending the superseded request cancelled the latest")
	}
	l.End(u) // the document closed
	if second.Err() == nil {
		t.Fatal("End left the request going")
	}
	done2()
}
