//go:build !linux && !darwin

package sandbox

import (
	"context"
	"runtime"
)

func probe(Level) Caps {
	return Caps{Level: None, Why: "no OS sandbox on " + runtime.GOOS + " yet"}
}

// haveSeccomp: seccomp is Linux's.
const haveSeccomp = false

func run(ctx context.Context, caps Caps, spec Spec) (Result, error) {
	w, done, err := commandWorld(caps, spec)
	defer done()
	if err != nil {
		return Result{}, err
	}
	return runPlain(ctx, w, spec.Stdout, spec.Stderr)
}

// start starts a server's world as a plain process: level none is the only one here.
func start(_ context.Context, caps Caps, spec Spec) (*Process, error) {
	w, done, err := commandWorld(caps, spec)
	if err != nil {
		done()
		return nil, err
	}
	return startPlain(w, spec.Stderr, done)
}

func removeStaleCgroups() {}

func prepare(Caps) {}
