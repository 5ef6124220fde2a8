package testrun

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/tools"
)

// goPackage is what go list says of a package.
type goPackage struct {
	ImportPath   string
	Dir          string
	Imports      []string
	TestImports  []string
	XTestImports []string
	TestGoFiles  []string
	XTestGoFiles []string
	Module       *struct {
		Path string
		Dir  string
	}
}

// goList lists a module's packages as go list's JSON stream prints them.
const goList = "go list -e -json=ImportPath,Dir,Imports,TestImports,XTestImports,TestGoFiles,XTestGoFiles,Module ./..."

// goModule is one Go module's build graph: its packages by import path,
// with the folder of each relative to the workspace's root.
type goModule struct {
	dir      string // of go.mod, slash-separated, relative to the workspace's root
	packages map[string]goPackage
	rel      map[string]string // import path → folder, relative to the workspace's root
}

// readGoList reads go list's JSON stream for the module at dir.
func readGoList(out, dir string) (goModule, error) {
	m := goModule{dir: dir, packages: map[string]goPackage{}, rel: map[string]string{}}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			return m, fmt.Errorf("go list: %v", err)
		}
		if p.Module == nil || p.ImportPath == "" {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.Dir, p.Module.Dir), "/")
		m.packages[p.ImportPath] = p
		m.rel[p.ImportPath] = path.Join(dir, rel)
	}
	return m, nil
}

// affected are the module's packages with tests that hold a changed file
// (slash-separated, relative to the workspace's root) or import, directly
// or through the module's packages (their tests' imports included), one
// that does, sorted.
func (m goModule) affected(changed []string) []string {
	touched := map[string]bool{}
	for ip, rel := range m.rel {
		for _, c := range changed {
			if path.Dir(c) == rel {
				touched[ip] = true
			}
		}
	}
	for grew := true; grew; {
		grew = false
		for ip, p := range m.packages {
			if touched[ip] {
				continue
			}
			for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
				if touched[imp] {
					touched[ip], grew = true, true
					break
				}
			}
		}
	}
	var out []string
	for ip := range touched {
		if p := m.packages[ip]; len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 {
			out = append(out, ip)
		}
	}
	sort.Strings(out)
	return out
}

// goTestCommand runs packages' tests (only: their tests named, for the
// run without the changes), as JSON events.
func goTestCommand(packages []string, only []string) string {
	cmd := "go test -json -count=1"
	if len(only) > 0 {
		var names []string
		for _, id := range only {
			_, name, _ := strings.Cut(id, " ")
			names = append(names, regexp.QuoteMeta(strings.SplitN(name, "/", 2)[0]))
		}
		slices.Sort(names)
		cmd += " -run " + tools.ShellQuote("^("+strings.Join(slices.Compact(names), "|")+")$")
	}
	return cmd + " " + strings.Join(quoteAll(packages), " ")
}

// goEvent is one line of go test -json.
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string // of build-output: "pkg [pkg.test]"
	FailedBuild string
}

// goPackageRun is what go test -json said of one package.
type goPackageRun struct {
	tests       []string                    // top-level, in the order run
	outputs     map[string]*strings.Builder // by test; "" the package's own
	results     map[string]string           // by test: pass, fail, skip; "" the package's
	failedBuild string
}

// goOutcome reads go test -json's output: how many top-level tests
// passed, in how many packages, and what failed: tests, and packages that
// did not build or failed outside their tests. rel maps an import path to
// its folder, moduleDir is where go test ran, both the workspace's naming.
func goOutcome(out string, rel map[string]string, moduleDir string) (passed, packages int, failed []Failure) {
	runs := map[string]*goPackageRun{}
	builds := map[string]*strings.Builder{}
	var order []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e goEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a line cut in the middle, or not an event
		}
		if e.Action == "build-output" {
			ip, _, _ := strings.Cut(e.ImportPath, " ")
			if builds[ip] == nil {
				builds[ip] = &strings.Builder{}
			}
			builds[ip].WriteString(e.Output)
			continue
		}
		if e.Package == "" {
			continue
		}
		r := runs[e.Package]
		if r == nil {
			r = &goPackageRun{outputs: map[string]*strings.Builder{}, results: map[string]string{}}
			runs[e.Package] = r
			order = append(order, e.Package)
		}
		topLevel := !strings.Contains(e.Test, "/")
		switch e.Action {
		case "run":
			if e.Test != "" && topLevel {
				r.tests = append(r.tests, e.Test)
			}
		case "output":
			if topLevel {
				if r.outputs[e.Test] == nil {
					r.outputs[e.Test] = &strings.Builder{}
				}
				r.outputs[e.Test].WriteString(e.Output)
			}
		case "pass", "fail", "skip":
			if topLevel {
				r.results[e.Test] = e.Action
			}
			if e.FailedBuild != "" {
				r.failedBuild = e.FailedBuild
			}
		}
	}
	for _, pkg := range order {
		r := runs[pkg]
		packages++
		testFailed := false
		for _, test := range r.tests {
			switch r.results[test] {
			case "pass":
				passed++
			case "fail", "":
				testFailed = true
				text := textOf(r.outputs[test])
				failed = append(failed, Failure{Suite: pkg, Name: test, Where: goWhere(text, rel[pkg]), Output: goFailureText(text)})
			}
		}
		if r.results[""] != "fail" || testFailed {
			continue
		}
		if r.failedBuild != "" {
			ip, _, _ := strings.Cut(r.failedBuild, " ")
			text := textOf(builds[ip])
			failed = append(failed, Failure{Suite: pkg, Build: true, Where: goWhere(text, moduleDir), Output: goFailureText(text)})
			continue
		}
		text := textOf(r.outputs[""])
		failed = append(failed, Failure{Suite: pkg, Where: goWhere(text, rel[pkg]), Output: goFailureText(text)})
	}
	return passed, packages, failed
}

func textOf(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return b.String()
}

// goWhereRE is a place a test or the compiler names: "    a_test.go:12:
// …", "c/c.go:3:23: …".
var goWhereRE = regexp.MustCompile(`(?m)^\s*([\w./\-]+\.go):(\d+):`)

// goWhere is the first place a test's output names, in the workspace's
// naming (the package's folder dir).
func goWhere(text, dir string) string {
	m := goWhereRE.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return path.Join(dir, m[1]) + ":" + m[2]
}

// goFailureText is a failure's output without go test's own lines.
func goFailureText(text string) string {
	var keep []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "=== RUN") || strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "=== PAUSE") || strings.HasPrefix(t, "=== CONT") ||
			t == "FAIL" || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "exit status") || strings.HasPrefix(t, "# ") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

// goSuites are the suites of the Go modules holding changed .go files
// (relative, slash-separated), found with go list in the sandbox: one per
// module, its affected packages' tests.
func goSuites(ctx context.Context, ws Workspace, modules map[string][]string, run runFunc) ([]Suite, error) {
	var out []Suite
	for _, dir := range slices.Sorted(maps.Keys(modules)) {
		res, err := run(ctx, ws, dir, goList)
		if err != nil {
			return nil, err
		}
		if res.ExitCode != 0 && !strings.HasPrefix(strings.TrimSpace(res.Output), "{") {
			return nil, fmt.Errorf("go list in %s: %s", dirName(dir), strings.Join(firstLines(res.Output, 3), " "))
		}
		m, err := readGoList(res.Output, dir)
		if err != nil {
			return nil, err
		}
		pkgs := m.affected(modules[dir])
		if len(pkgs) == 0 {
			continue
		}
		rel := m.rel
		out = append(out, Suite{Kind: "go", Dir: dir, Targets: pkgs, Unit: "package", Name: "go test " + strings.Join(relPackages(m.rel, pkgs, dir), " "),
			command: func(only []string) string { return goTestCommand(pkgs, only) },
			read: func(output string) (int, int, []Failure) {
				passed, n, failed := goOutcome(output, rel, dir)
				for i := range failed {
					failed[i].Suite = rel[failed[i].Suite]
				}
				return passed, n, failed
			},
			ids: func(f Failure) string { return importPathOf(rel, f.Suite) + " " + f.Name },
		})
	}
	return out, nil
}

// relPackages are packages as ./dir patterns relative to the module's
// folder moduleDir, as a user types them.
func relPackages(rel map[string]string, pkgs []string, moduleDir string) []string {
	out := make([]string, len(pkgs))
	for i, ip := range pkgs {
		out[i] = "./" + strings.TrimPrefix(relTo(moduleDir, rel[ip]), "./")
		if rel[ip] == moduleDir {
			out[i] = "."
		}
	}
	return out
}

// importPathOf is the import path of the package in folder dir.
func importPathOf(rel map[string]string, dir string) string {
	for ip, d := range rel {
		if d == dir {
			return ip
		}
	}
	return dir
}

func dirName(dir string) string {
	if dir == "" || dir == "." {
		return "the workspace's root"
	}
	return dir
}
