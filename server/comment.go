package server

import (
	"path/filepath"
	"strings"
)

// commentSyntax is how a comment opens and, where the language has only
// block comments, closes: by the client's language id, else by the file's
// extension or name. Unknown languages get "#", the most common marker
// in files without one (configs, scripts).
func commentSyntax(language, path string) (open, close string) {
	key := strings.ToLower(language)
	if _, ok := comments[key]; !ok {
		key = strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
		if key == "" {
			key = strings.ToLower(filepath.Base(path))
		}
	}
	if c, ok := comments[key]; ok {
		return c[0], c[1]
	}
	return "#", ""
}

// comments maps language ids (LSP's list) and extensions to comment markers.
var comments = map[string][2]string{}

func init() {
	for markers, keys := range map[[2]string][]string{
		{"//", ""}: {"go", "c", "cpp", "cc", "h", "hpp", "objective-c", "m", "csharp", "cs", "java", "kotlin", "kt", "kts",
			"scala", "swift", "rust", "rs", "javascript", "js", "mjs", "cjs", "javascriptreact", "jsx", "typescript", "ts",
			"typescriptreact", "tsx", "dart", "php", "groovy", "zig", "proto", "jsonc", "d", "v", "odin", "hare", "gleam", "sol"},
		{"#", ""}: {"python", "py", "shellscript", "sh", "bash", "zsh", "fish", "ruby", "rb", "perl", "pl", "r", "yaml", "yml",
			"toml", "makefile", "dockerfile", "nix", "elixir", "ex", "exs", "julia", "jl", "powershell", "ps1", "coffeescript",
			"cmake", "conf", "ini", "nim", "crystal", "cr", "tcl", "gdscript", "starlark", "bzl", "build", "gitignore"},
		{"--", ""}:      {"lua", "sql", "haskell", "hs", "elm", "ada", "adb", "purescript", "purs", "agda", "idris", "vhdl"},
		{";;", ""}:      {"lisp", "emacs-lisp", "el", "clojure", "clj", "cljs", "scheme", "scm", "racket", "rkt", "fennel", "fnl"},
		{"%", ""}:       {"latex", "tex", "erlang", "erl", "matlab", "prolog", "bibtex", "bib"},
		{"\"", ""}:      {"vim", "vimscript"},
		{"<!--", "-->"}: {"html", "htm", "xml", "svg", "markdown", "md", "vue", "svelte", "astro", "xhtml"},
		{"/*", "*/"}:    {"css", "scss", "less"},
		{"(*", "*)"}:    {"ocaml", "ml", "mli", "fsharp", "fs", "pascal", "pas"},
	} {
		for _, k := range keys {
			comments[k] = markers
		}
	}
}
