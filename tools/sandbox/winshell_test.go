package sandbox

import (
	"slices"
	"testing"
)

// TestWindowsShells: Git for Windows' bash first, wherever its git.exe
// sits; then PATH's shells; never WSL's bash.exe in System32 or
// WindowsApps.
func TestWindowsShells(t *testing.T) {
	path := `C:\WINDOWS\system32;C:\WINDOWS;C:\Users\me\AppData\Local\Microsoft\WindowsApps;"C:\msys64\usr\bin";C:\tools\;`
	for _, c := range []struct {
		git  string
		want []string
	}{
		{`C:\Program Files\Git\cmd\git.exe`, []string{`C:\Program Files\Git\bin\bash.exe`, `C:\Program Files\Git\usr\bin\bash.exe`}},
		{`C:\Program Files\Git\mingw64\bin\git.exe`, []string{`C:\Program Files\Git\bin\bash.exe`, `C:\Program Files\Git\usr\bin\bash.exe`}},
		{`D:\Git\bin\git.exe`, []string{`D:\Git\bin\bash.exe`, `D:\Git\usr\bin\bash.exe`}},
		{`C:\Users\me\scoop\shims\git.exe`, nil},
		{"", nil},
	} {
		got := windowsShells(path, c.git, `C:\Windows`)
		want := append(c.want, `C:\msys64\usr\bin\bash.exe`, `C:\tools\bash.exe`, `C:\msys64\usr\bin\sh.exe`, `C:\tools\sh.exe`)
		if !slices.Equal(got, want) {
			t.Errorf("git %q:\ngot  %q\nwant %q", c.git, got, want)
		}
	}
}
