//go:build !linux && !darwin

package sandbox

import (
	"context"
	"runtime"
)

func probe() Caps {
	return Caps{Level: None, Why: "no OS sandbox on " + runtime.GOOS + " yet"}
}

func run(ctx context.Context, _ Caps, spec Spec) (Result, error) { return runPlain(ctx, spec) }

func removeStaleCgroups() {}

func prepare(Caps) {}
