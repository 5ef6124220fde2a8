package sandbox

// archProbes: arm64 has no I/O-port calls and no x32-like ABI.
func archProbes() []seccompProbe { return nil }

// foreignArchProbes: a 64-bit arm64 process cannot make an AArch32 call
// without exec'ing a 32-bit binary (the filter's arch check is the same
// load-and-compare as on amd64, where it is tested).
func foreignArchProbes() []seccompProbe { return nil }
