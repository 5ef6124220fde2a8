package testrun

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// pythonImports prints, as JSON, each .py file's imports (name, level) of
// the project below the current folder, parsed with ast (nothing of the
// project runs; -I: no site, no user's or the project's path).
const pythonImports = `python3 -I -c '
import ast, json, os
skip = {"node_modules", "__pycache__", "venv", "build", "dist", "site-packages"}
out = {}
for top, dirs, files in os.walk("."):
    dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip)
    for f in files:
        if not f.endswith(".py"):
            continue
        p = os.path.relpath(os.path.join(top, f), ".")
        imports = []
        try:
            tree = ast.parse(open(p, "rb").read(), p)
        except Exception:
            out[p] = imports
            continue
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                imports += [[a.name, 0] for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                base = n.module or ""
                imports.append([base, n.level])
                imports += [[(base + "." if base else "") + a.name, n.level] for a in n.names if a.name != "*"]
        out[p] = imports
print(json.dumps(out))
'`

// pyProject is a Python project's modules and what each imports, its
// paths relative to the project's folder.
type pyProject struct {
	dir     string              // the project's folder, relative to the workspace's root
	imports map[string][]string // by file: the project's files it imports
	modules map[string]string   // by dotted name (from the root, and from src/): the file
}

// readPythonImports reads pythonImports's output for the project at dir.
func readPythonImports(out, dir string) (pyProject, error) {
	var raw map[string][][2]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &raw); err != nil {
		return pyProject{}, fmt.Errorf("reading the project's imports: %v", err)
	}
	p := pyProject{dir: dir, imports: map[string][]string{}, modules: map[string]string{}}
	for file := range raw {
		for _, name := range moduleNames(file) {
			p.modules[name] = file
		}
	}
	for file, imps := range raw {
		for _, imp := range imps {
			var name string
			var level int
			_ = json.Unmarshal(imp[0], &name)
			_ = json.Unmarshal(imp[1], &level)
			if f, ok := p.resolve(file, name, level); ok && f != file && !slices.Contains(p.imports[file], f) {
				p.imports[file] = append(p.imports[file], f)
			}
		}
	}
	return p, nil
}

// moduleNames are the dotted names a file is imported by: from the
// project's root, and from src/ in a src layout.
func moduleNames(file string) []string {
	mod := strings.TrimSuffix(file, ".py")
	mod = strings.TrimSuffix(mod, "/__init__")
	names := []string{strings.ReplaceAll(mod, "/", ".")}
	if rest, ok := strings.CutPrefix(mod, "src/"); ok {
		names = append(names, strings.ReplaceAll(rest, "/", "."))
	}
	return names
}

// resolve is the project's file an import in file names, if any: the
// module itself, or the longest of its parents the project holds (from a
// import b, b may be a module or a name in a).
func (p pyProject) resolve(file, name string, level int) (string, bool) {
	if level > 0 {
		pkg := strings.Split(path.Dir(file), "/")
		if path.Dir(file) == "." {
			pkg = nil
		}
		if level-1 > len(pkg) {
			return "", false
		}
		parts := pkg[:len(pkg)-(level-1)]
		if name != "" {
			parts = append(slices.Clone(parts), name)
		}
		name = strings.TrimPrefix(strings.Join(parts, "."), "src.") // as the src layout imports it
	}
	for name != "" {
		if f, ok := p.modules[name]; ok {
			return f, true
		}
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			break
		}
		name = name[:i]
	}
	return "", false
}

// isTestFile is pytest's default: test_*.py or *_test.py.
func isTestFile(file string) bool {
	base := path.Base(file)
	return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// affected are the test files that are changed or import a changed file,
// directly or through the project's files, sorted; changed are relative
// to the project's folder.
func (p pyProject) affected(changed []string) []string {
	touched := map[string]bool{}
	for _, c := range changed {
		touched[c] = true
	}
	for grew := true; grew; {
		grew = false
		for file, imps := range p.imports {
			if !touched[file] && slices.ContainsFunc(imps, func(f string) bool { return touched[f] }) {
				touched[file], grew = true, true
			}
		}
	}
	var out []string
	for f := range touched {
		if isTestFile(f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// pytestCommand runs test files (only: those tests, by node id) with the
// project's own virtual environment's pytest where it has one, else the
// pytest on PATH, else python3's; the project's folder is on the import
// path, as python -m pytest has it. No bytecode is written: the run with
// the changes and the one without share the view, and a cached module of
// the same size and second would pass for the other text.
func pytestCommand(files, only []string) string {
	targets := files
	if len(only) > 0 {
		targets = only
	}
	args := "-q -p no:cacheprovider -rfE --tb=short " + strings.Join(quoteAll(targets), " ")
	return "export PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=\"$PWD${PYTHONPATH:+:$PYTHONPATH}\"\n" +
		"for py in .venv/bin/python venv/bin/python; do [ -x \"$py\" ] && exec \"$py\" -m pytest " + args + "; done\n" +
		"command -v pytest >/dev/null && exec pytest " + args + "\nexec python3 -m pytest " + args
}

var (
	pytestFailedRE  = regexp.MustCompile(`(?m)^(?:FAILED|ERROR) (\S+?)(?: - (.*))?$`)
	pytestSummaryRE = regexp.MustCompile(`(?m)^=*\s*(.*\b(?:passed|failed|error|errors|skipped|no tests ran)\b.*) in [\d.]+s`)
	pytestCountRE   = regexp.MustCompile(`(\d+) (passed|failed|errors?)`)
	pytestHeaderRE  = regexp.MustCompile(`(?m)^_{3,} (.+?) _{3,}$`)
	pytestWhereRE   = regexp.MustCompile(`(?m)^([\w./\-]+\.py):(\d+): in `)
)

// pytestOutcome reads pytest's -q -rfE --tb=short output: how many tests
// passed, in how many files, and which failed (with where each failed and
// its traceback's first lines). dir is the project's folder.
func pytestOutcome(out, dir string, files []string) (passed, suites int, failed []Failure) {
	if m := pytestSummaryRE.FindStringSubmatch(out); m != nil {
		for _, c := range pytestCountRE.FindAllStringSubmatch(m[1], -1) {
			if c[2] == "passed" {
				passed, _ = strconv.Atoi(c[1])
			}
		}
	}
	sections := pytestSections(out)
	for _, m := range pytestFailedRE.FindAllStringSubmatch(out, -1) {
		id := m[1]
		file, name, _ := strings.Cut(id, "::")
		f := Failure{Suite: path.Join(dir, file), Name: name, Output: m[2]}
		if name == "" {
			f.Build = true // the file could not be collected
		}
		if s, ok := sections[strings.ReplaceAll(name, "::", ".")]; ok {
			if w := pytestWhereRE.FindStringSubmatch(s); w != nil {
				f.Where = path.Join(dir, w[1]) + ":" + w[2]
			}
			f.Output = s
		}
		failed = append(failed, f)
	}
	return passed, len(files), failed
}

// pytestSections are --tb=short's sections by test name (its header).
func pytestSections(out string) map[string]string {
	sections := map[string]string{}
	heads := pytestHeaderRE.FindAllStringSubmatchIndex(out, -1)
	for i, h := range heads {
		end := len(out)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		body := out[h[1]:end]
		if j := strings.Index(body, "\n=="); j >= 0 {
			body = body[:j]
		}
		sections[out[h[2]:h[3]]] = strings.TrimSpace(body)
	}
	return sections
}

// pytestID is a failure's node id, relative to the project's folder.
func pytestID(dir string, f Failure) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(f.Suite, dir), "/")
	if dir == "." || dir == "" {
		rel = f.Suite
	}
	if f.Name == "" {
		return rel
	}
	return rel + "::" + f.Name
}

// pythonSuites are the suites of the Python projects holding changed .py
// files, found in the sandbox: one per project, the test files its
// changes touch.
func pythonSuites(ctx context.Context, ws Workspace, projects map[string][]string, run runFunc) ([]Suite, error) {
	var out []Suite
	for _, dir := range slices.Sorted(maps.Keys(projects)) {
		res, err := run(ctx, ws, dir, pythonImports)
		if err != nil {
			return nil, err
		}
		if res.ExitCode != 0 {
			return nil, fmt.Errorf("reading the Python project's imports in %s: %s", dirName(dir), strings.Join(firstLines(res.Output, 3), " "))
		}
		p, err := readPythonImports(res.Output, dir)
		if err != nil {
			return nil, err
		}
		var changed []string
		for _, c := range projects[dir] {
			changed = append(changed, relTo(dir, c))
		}
		files := p.affected(changed)
		if len(files) == 0 {
			continue
		}
		out = append(out, Suite{Kind: "pytest", Dir: dir, Targets: files, Unit: "file", Name: "pytest " + strings.Join(files, " "),
			command: func(only []string) string { return pytestCommand(files, only) },
			read: func(output string) (int, int, []Failure) {
				return pytestOutcome(output, dir, files)
			},
			ids: func(f Failure) string { return pytestID(dir, f) },
		})
	}
	return out, nil
}

// relTo is file (relative to the workspace's root) relative to dir.
func relTo(dir, file string) string {
	if dir == "" || dir == "." {
		return file
	}
	return strings.TrimPrefix(file, dir+"/")
}
