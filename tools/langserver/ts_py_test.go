package langserver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/tools/langserver"
	"github.com/agent-lsp/agent-lsp/tools/langserver/langservertest"
	"github.com/agent-lsp/agent-lsp/tools/toolstest"
)

// projectSession is a session with the real server command (named server
// in the settings) over files; closed when t ends.
func projectSession(t *testing.T, command string, files map[string]string) (*langserver.Session, *tools.Workspace, string) {
	t.Helper()
	path := toolstest.LanguageServer(t, command)
	root := langservertest.WriteProject(t, files)
	ws, err := tools.NewWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	// typescript-language-server makes a dir in the temp dir it never removes.
	m := langserver.NewManager(langserver.Options{Start: langservertest.Exec("HOME="+t.TempDir(), "TMPDIR="+t.TempDir()), LookPath: langservertest.Paths(map[string]string{command: path}),
		Logger: langservertest.Logger(t)})
	t.Cleanup(m.Close)
	s := langserver.NewSession(m, ws, langserver.WithOverrides(langserver.KnownServers(), nil))
	t.Cleanup(s.Close)
	return s, ws, root
}

// importerBreaks stages a change of an exported signature in changed and
// checks that the session names the error it makes in importer.
func importerBreaks(t *testing.T, server, command string, files map[string]string, changed, from, to, importer, want string) {
	t.Helper()
	s, ws, root := projectSession(t, command, files)
	if _, err := ws.Stage(changed, strings.Replace(files[changed], from, to, 1)); err != nil {
		t.Fatal(err)
	}
	r := s.AfterEdit(context.Background(), filepath.Join(root, changed), files[changed])
	text := r.Text()
	t.Logf("%s:\n%s", server, text)
	if !strings.Contains(text, importer+":") || !strings.Contains(text, want) {
		t.Fatalf("%s: the importer's error is not named (%s, %q):\n%s", server, importer, want, text)
	}
}

func TestTypeScriptExportedSignatureChangeShowsTheImportersError(t *testing.T) {
	importerBreaks(t, "typescript-language-server", "typescript-language-server", map[string]string{
		"package.json":  `{"name": "m", "version": "1.0.0"}` + "\n",
		"tsconfig.json": `{"compilerOptions": {"strict": true, "module": "commonjs", "target": "es2020"}, "include": ["src"]}` + "\n",
		"src/math.ts":   "export function add(x: number, y: number): number {\n  return x + y;\n}\n",
		"src/main.ts":   "import { add } from \"./math\";\n\nexport const two = add(1, 1);\n",
	}, "src/math.ts", "y: number)", "y: number, z: number)", "src/main.ts", "Expected 3 arguments, but got 2")
}

func TestPythonExportedSignatureChangeShowsTheImportersError(t *testing.T) {
	importerBreaks(t, "pyright", "pyright-langserver", map[string]string{
		"pyproject.toml": "[project]\nname = \"m\"\nversion = \"0\"\n",
		"mathx.py":       "def add(x: int, y: int) -> int:\n    return x + y\n",
		"main.py":        "from mathx import add\n\nTWO = add(1, 1)\n",
	}, "mathx.py", "y: int)", "y: int, z: int)", "main.py", `"z"`)
}

func TestCHeaderSignatureChangeShowsTheCallersError(t *testing.T) {
	importerBreaks(t, "clangd", "clangd", cProject, "mathx.h", "int y);", "int y, int z);", "main.c", "Too few arguments to function call, expected 3, have 2")
}

// cProject is a C project whose add, declared in a header, is called
// from another file; compile_commands.json names its files (clangd
// indexes them for references), as a build writes it; {root} stands for
// the project's folder.
var cProject = map[string]string{
	"compile_commands.json": `[{"directory": "{root}", "file": "mathx.c", "arguments": ["cc", "-std=c11", "-c", "mathx.c"]},` +
		` {"directory": "{root}", "file": "main.c", "arguments": ["cc", "-std=c11", "-c", "main.c"]}]` + "\n",
	"mathx.h": "#ifndef MATHX_H\n#define MATHX_H\n\nint add(int x, int y);\n\n#endif\n",
	"mathx.c": "#include \"mathx.h\"\n\nint add(int x, int y) { return x + y; }\n",
	"main.c":  "#include \"mathx.h\"\n\nint two(void) { return add(1, 1); }\n",
}

// notLoaded stages to for changed (from's text in files) and checks that
// the session says its errors are not known, naming want, and never that
// there are none.
func notLoaded(t *testing.T, command string, files map[string]string, changed, to, want string) {
	t.Helper()
	s, ws, root := projectSession(t, command, files)
	if _, err := ws.Stage(changed, to); err != nil {
		t.Fatal(err)
	}
	r := s.AfterEdit(context.Background(), filepath.Join(root, changed), files[changed])
	text := r.Text()
	if r.Verdict() != langserver.NotKnown || !strings.Contains(text, "not known for "+changed+": ") || !strings.Contains(text, want) || strings.Contains(text, "no new errors") {
		t.Errorf("%s's verdict on %s:\n%s", command, changed, text)
	}
}

// TestATypeScriptFileOutsideEveryProjectIsNotKnown: a file no
// tsconfig.json includes is checked by tsserver alone with default
// options: its silence proves nothing of the project's build.
func TestATypeScriptFileOutsideEveryProjectIsNotKnown(t *testing.T) {
	files := map[string]string{
		"package.json":    `{"name": "m", "version": "1.0.0"}` + "\n",
		"tsconfig.json":   `{"compilerOptions": {"strict": true, "module": "commonjs", "target": "es2020"}, "include": ["src"]}` + "\n",
		"src/math.ts":     "export function add(x: number, y: number): number {\n  return x + y;\n}\n",
		"scripts/tool.ts": "import { add } from \"../src/math\";\n\nexport const two: number = add(1, 1);\n",
	}
	notLoaded(t, "typescript-language-server", files, "scripts/tool.ts", strings.Replace(files["scripts/tool.ts"], "add(1, 1)", "add(2, 2)", 1),
		"it is in no tsconfig.json or jsconfig.json project")
}

// TestAFilePyrightIgnoresIsNotKnown: pyright suppresses the diagnostics
// of a file its configuration ignores: a break there would look clean.
func TestAFilePyrightIgnoresIsNotKnown(t *testing.T) {
	files := map[string]string{
		"pyproject.toml":  "[project]\nname = \"m\"\nversion = \"0\"\n\n[tool.pyright]\nignore = [\"vendor\"]\n",
		"vendor/mathx.py": "def add(x: int, y: int) -> int:\n    return x + y\n",
	}
	notLoaded(t, "pyright-langserver", files, "vendor/mathx.py", "def add(x: int, y: int) -> int:\n    return x + \"y\"\n",
		"pyproject.toml's [tool.pyright] ignores it")
}
