package sandbox

import "strings"

// windowsShells lists where a POSIX shell may be on Windows, best first:
// Git for Windows' bash beside the git on PATH (git.exe lives in Git\cmd,
// Git\bin or Git\mingw64\bin), then bash.exe and sh.exe in PATH's
// directories (MSYS2, Cygwin) — never in Windows's own directories
// (System32, WindowsApps), whose bash.exe starts WSL: a Linux VM's shell,
// with other paths, outside the Job Object. Plain string work on Windows
// paths, so it is tested on every system.
func windowsShells(pathList, git, systemRoot string) []string {
	var out []string
	if git != "" {
		dir := winDir(git)
		root := winDir(dir)
		switch base := strings.ToLower(winBase(dir)); {
		case base == "bin" && strings.HasPrefix(strings.ToLower(winBase(root)), "mingw"), base == "bin" && strings.HasPrefix(strings.ToLower(winBase(root)), "clang"):
			root = winDir(root)
		case base != "cmd" && base != "bin":
			root = ""
		}
		if root != "" {
			out = append(out, root+`\bin\bash.exe`, root+`\usr\bin\bash.exe`)
		}
	}
	for _, name := range []string{"bash.exe", "sh.exe"} {
		for _, d := range strings.Split(pathList, ";") {
			d = strings.TrimRight(strings.Trim(d, `"`), `\/`)
			if d == "" || windowsOwnDir(d, systemRoot) {
				continue
			}
			out = append(out, d+`\`+name)
		}
	}
	return out
}

// windowsOwnDir reports whether d is one of Windows's own program
// directories, where bash.exe is WSL's.
func windowsOwnDir(d, systemRoot string) bool {
	d = strings.ToLower(strings.ReplaceAll(d, "/", `\`))
	if strings.HasSuffix(d, `\microsoft\windowsapps`) {
		return true
	}
	if systemRoot == "" {
		systemRoot = `C:\Windows`
	}
	sys := strings.ToLower(strings.TrimRight(systemRoot, `\`))
	return d == sys || strings.HasPrefix(d, sys+`\`)
}

func winDir(p string) string {
	if i := strings.LastIndexAny(p, `\/`); i > 0 {
		return p[:i]
	}
	return ""
}

func winBase(p string) string { return p[strings.LastIndexAny(p, `\/`)+1:] }
