// Command mkrelease writes agent-lsp's ACP Registry archives and entry
// into the release's dist folder, from the binaries built there:
//
//	go run ./server/acp/registry/mkrelease -version v1.2.3 -base-url URL dist
//
// URL is where the release's files are downloaded from (the archives'
// address, without the file name). .ci/release runs it.
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"os"

	"github.com/agent-lsp/agent-lsp/server/acp/registry"
)

func main() {
	version := flag.String("version", "", "the build's version (git describe's); the registry's is made of it")
	baseURL := flag.String("base-url", "", "the address the release's files are downloaded from")
	flag.Parse()
	if flag.NArg() != 1 || *version == "" || *baseURL == "" {
		fmt.Fprintln(os.Stderr, "usage: mkrelease -version VERSION -base-url URL DIST")
		os.Exit(2)
	}
	entry, err := registry.Pack(flag.Arg(0), registry.Version(*version), *baseURL, gzip.BestCompression)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkrelease:", err)
		os.Exit(1)
	}
	fmt.Printf("ACP Registry entry %s %s: %d archives\n", entry.ID, entry.Version, len(entry.Distribution.Binary))
}
