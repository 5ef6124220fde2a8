// Command initclient times what an ACP client waits for at start-up: it
// starts `AGENT acp`, sends the registry's initialize (a client with
// _meta terminal-auth) and exits once the answer's line arrives, killing
// the agent. Run under farm-bench, two builds side by side:
//
//	go build -o /tmp/initclient ./server/acp/testdata/initclient
//	farm-bench -n 30 -- /tmp/initclient ./agent-lsp-new --vs '/tmp/initclient ./agent-lsp-old'
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"initclient","version":"1"},"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"_meta":{"terminal-auth":true}}}}` + "\n"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: initclient AGENT")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], "acp")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	io.WriteString(in, initialize)
	line, err := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if err != nil || !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"result"`) {
		fmt.Fprintf(os.Stderr, "no answer to initialize: %q %v\n", line, err)
		os.Exit(1)
	}
}
