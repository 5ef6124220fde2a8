package testrun_test

import (
	"context"
	"testing"
	"time"
)

func TestTimingScratch(t *testing.T) {
	ws, _ := workspace(t, goModule)
	for i := range 3 {
		start := time.Now()
		res, err := ws.RunCommand(context.Background(), "go test -count=1 ./...", time.Minute, 100000)
		t.Logf("%d: %s exit %d %v\n%s", i, time.Since(start), res.ExitCode, err, res.Output)
	}
	for i := range 2 {
		start := time.Now()
		res, err := ws.RunCommand(context.Background(), "go env GOCACHE; ls $(go env GOCACHE) | head -3", time.Minute, 100000)
		t.Logf("%d: %s exit %d %v\n%s", i, time.Since(start), res.ExitCode, err, res.Output)
	}
}
