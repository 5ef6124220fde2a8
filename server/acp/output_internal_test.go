package acp

import "testing"

// TestOneOutputUpdatePerInterval: output that comes once outputInterval
// has passed goes out at once, and stops the timer set for what came
// before it; that timer, had it fired already (its callback waiting for
// the lock), sends nothing: never two updates within one interval.
func TestOneOutputUpdatePerInterval(t *testing.T) {
	w := newWireTurn(t)
	e := w.runningCommand(false)
	o := w.calls[callKey(e)].out
	o.add("one\n") // the first goes out at once
	o.add("two\n") // within the interval: a timer is set
	o.mu.Lock()
	late := o.timerOf
	o.sent = o.sent.Add(-outputInterval) // the interval passed; the timer has not run
	o.mu.Unlock()
	o.add("three\n") // due: it goes out at once, with two
	o.flush(late)    // the timer's callback, run late
	o.end()
	w.drain()
	if n := w.lines.Load(); n != 2 {
		t.Fatalf("%d updates, want 2: one per interval", n)
	}
}
