//go:build !windows

package sandbox

// windowsHost: see env_windows.go.
const windowsHost = false
