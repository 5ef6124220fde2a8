// Command testserver is the MCP server tools/mcp's tests start: written on
// the same SDK as the client, over stdio (the default) or Streamable HTTP
// (-http: it prints "listening on URL" and serves until killed).
//
// Its tools: greet (a schema with a required field), fail (isError), slow
// (sleeps until done or cancelled, and records a cancellation in
// $MCPTEST_DIR/cancelled), crash (the process exits mid-call), grow (adds
// the tool "late": tools/list_changed), lookup (readOnlyHint), media (an
// image, a resource link and an embedded resource), big (n bytes of text),
// env (the value of a variable in its environment), header (one of the
// HTTP request's), and one whose name
// holds characters no provider takes. With -prompts-only it has its
// prompts and no tool, declares no tools capability and refuses tools/list.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	exitAtStart := flag.Bool("exit-at-start", false, "exit at once, as a broken server does")
	silent := flag.Bool("silent", false, "never answer, as a hung server does")
	promptsOnly := flag.Bool("prompts-only", false, "have prompts and no tools: declare no tools capability")
	flag.Parse()
	dir := os.Getenv("MCPTEST_DIR")
	if dir != "" {
		// Every start is counted: restarts show in the file.
		f, _ := os.OpenFile(filepath.Join(dir, "starts"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	switch {
	case *exitAtStart:
		// Coloured, as some servers do: it must reach a terminal escaped.
		fmt.Fprintln(os.Stderr, "\x1b[31mtestserver: cannot start: missing database\x1b[0m")
		os.Exit(2)
	case *silent:
		select {}
	}
	srv := newServer(dir)
	if *promptsOnly {
		srv = promptsOnlyServer()
	}
	if *httpAddr == "" {
		if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	log.Fatal(http.Serve(ln, handler))
}

type greetIn struct {
	Name  string `json:"name" jsonschema:"who to greet"`
	Times int    `json:"times,omitempty" jsonschema:"how often"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

type slowIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to take"`
}

type bigIn struct {
	N int `json:"n"`
}

type envIn struct {
	Name string `json:"name"`
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer(dir string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets someone."}, func(_ context.Context, _ *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
		g := strings.TrimSpace(strings.Repeat("Hello, "+in.Name+"! ", max(in.Times, 1)))
		return nil, greetOut{Greeting: g}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		r := text("the widget is jammed; try greet instead")
		r.IsError = true
		return r, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Takes its time."}, func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return text("done"), nil, nil
		case <-ctx.Done():
			if dir != "" {
				os.WriteFile(filepath.Join(dir, "cancelled"), []byte("yes"), 0o644)
			}
			return nil, nil, ctx.Err()
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits mid-call."}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "testserver: crashing on purpose")
		os.Exit(3)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Adds the tool late."}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(s, &mcp.Tool{Name: "late", Description: "Came later."}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
			return text("late tool here"), nil, nil
		})
		s.AddPrompt(&mcp.Prompt{Name: "later", Description: "Came later."}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "a later prompt"}}}}, nil
		})
		return text("added late"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "lookup", Description: "Looks something up.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest, envIn) (*mcp.CallToolResult, any, error) {
			return text("found it"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "media", Description: "Returns an image and resources."}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a picture:"},
			&mcp.ImageContent{MIMEType: "image/png", Data: bytes.Repeat([]byte{0x89}, 4096)},
			&mcp.ResourceLink{URI: "file:///tmp/report.pdf", Name: "report", MIMEType: "application/pdf"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://notes", MIMEType: "text/plain", Text: "the notes"}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://blob", MIMEType: "application/zip", Blob: []byte("PK\x03\x04")}},
		}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns n bytes."}, func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
		return text("START" + strings.Repeat("x", max(in.N-8, 0)) + "END"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Says a variable of its environment."}, func(_ context.Context, _ *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
		v, ok := os.LookupEnv(in.Name)
		if !ok {
			return text(in.Name + " is not set"), nil, nil
		}
		return text(in.Name + "=" + v), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "header", Description: "Says a header of the HTTP request."}, func(_ context.Context, req *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
		if req.Extra == nil || req.Extra.Header == nil {
			return text("no HTTP request"), nil, nil
		}
		return text(in.Name + ": " + req.Extra.Header.Get(in.Name)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "odd name/\x1b[2J", Description: strings.Repeat("very long description ", 200)}, func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
		return text("odd"), nil, nil
	})
	addPrompts(s)
	return s
}

// promptsOnlyServer has the prompts alone, and refuses tools/list as
// servers on the TypeScript SDK do when they registered no tool.
func promptsOnlyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	addPrompts(s)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// addPrompts gives the server its prompts: review (a required and an
// optional argument, a user's and an assistant's message, an image),
// broken (fails), and one whose name no user can type.
func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "review", Title: "Review a file", Description: "Reviews one file.\nSecond line.", Arguments: []*mcp.PromptArgument{
		{Name: "file", Description: "the file to review", Required: true}, {Name: "focus", Description: "what to look at"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			focus := req.Params.Arguments["focus"]
			if focus == "" {
				focus = "everything"
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Review " + req.Params.Arguments["file"] + " for " + focus + "."}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "I will read it first."}},
				{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte("png")}},
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "broken"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, fmt.Errorf("the prompt store is down")
	})
	s.AddPrompt(&mcp.Prompt{Name: "odd name/\x1b[2J"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
}
