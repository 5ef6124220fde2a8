//go:build linux && (amd64 || arm64)

package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestFilterProgramAssembles checks the program's shape: every jump lands
// inside it, and it ends in returns only (what the kernel's verifier
// demands; the hostile corpus checks what it refuses, by effect).
func TestFilterProgramAssembles(t *testing.T) {
	for _, o := range []Filter{{}, {NoUnixSockets: true}, {NoUnixSockets: true, NoInetSockets: true}} {
		prog, err := o.program()
		if err != nil {
			t.Fatal(err)
		}
		for i, ins := range prog {
			if ins.Code&0x07 == unix.BPF_JMP && (i+1+int(ins.Jt) >= len(prog) || i+1+int(ins.Jf) >= len(prog)) {
				t.Errorf("instruction %d jumps past the end", i)
			}
		}
		if last := prog[len(prog)-1]; last.Code != unix.BPF_RET|unix.BPF_K {
			t.Errorf("the program does not end in a return: %+v", last)
		}
	}
}

func BenchmarkFilterProgram(b *testing.B) {
	for b.Loop() {
		if _, err := (Filter{}).program(); err != nil {
			b.Fatal(err)
		}
	}
}
