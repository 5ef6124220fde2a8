package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// errCancelled: the user left the set-up (Ctrl-C, Ctrl-D) before its end.
var errCancelled = errors.New("set-up cancelled")

// prompter asks the user questions on a terminal, or on any reader: one
// line an answer, a secret read without echo where the input is a
// terminal. Every read ends when ctx does (Ctrl-C), with the terminal's
// echo given back.
type prompter struct {
	ctx   context.Context
	in    io.Reader
	lines *bufio.Reader
	out   io.Writer
}

func newPrompter(ctx context.Context, in io.Reader, out io.Writer) *prompter {
	return &prompter{ctx: ctx, in: in, lines: bufio.NewReader(in), out: out}
}

// ask shows question and returns the answer, trimmed; def where it is empty.
func (p *prompter) ask(question, def string) (string, error) {
	if def != "" {
		question += " [" + def + "]"
	}
	fmt.Fprint(p.out, question+": ")
	answer, err := p.read(func() (string, error) { return p.lines.ReadString('\n') })
	if err != nil {
		return "", err
	}
	if answer = strings.TrimSpace(answer); answer == "" {
		return def, nil
	}
	return answer, nil
}

// secret asks for a value that must not be shown: read without echo on a
// terminal, never written anywhere by the prompter.
func (p *prompter) secret(question string) (string, error) {
	fmt.Fprint(p.out, question+": ")
	f, ok := p.in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		answer, err := p.read(func() (string, error) { return p.lines.ReadString('\n') })
		return strings.TrimSpace(answer), err
	}
	fd := int(f.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	defer fmt.Fprintln(p.out) // the user's Enter was not echoed
	answer, err := p.read(func() (string, error) {
		b, err := term.ReadPassword(fd)
		return string(b), err
	})
	if err != nil {
		term.Restore(fd, state) // the read may still hold the terminal without echo
	}
	return strings.TrimSpace(answer), err
}

// read runs one blocking read, given up when ctx ends; end of input is a
// cancel too.
func (p *prompter) read(f func() (string, error)) (string, error) {
	type result struct {
		s   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := f()
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		if errors.Is(r.err, io.EOF) && strings.TrimSpace(r.s) == "" {
			return "", errCancelled
		}
		if r.err != nil && !errors.Is(r.err, io.EOF) {
			return "", r.err
		}
		return r.s, nil
	case <-p.ctx.Done():
		return "", errCancelled
	}
}

// choose shows numbered options and returns the index picked, by number
// or by exact name; def is the index an empty answer takes.
func (p *prompter) choose(question string, options []string, def int) (int, error) {
	for i, o := range options {
		fmt.Fprintf(p.out, "  %2d) %s\n", i+1, o)
	}
	for {
		answer, err := p.ask(question, fmt.Sprint(def+1))
		if err != nil {
			return 0, err
		}
		var n int
		if _, err := fmt.Sscan(answer, &n); err == nil && n >= 1 && n <= len(options) && fmt.Sprint(n) == answer {
			return n - 1, nil
		}
		for i, o := range options {
			if f := strings.Fields(o); len(f) > 0 && f[0] == answer {
				return i, nil
			}
		}
		fmt.Fprintf(p.out, "Type a number from 1 to %d, or a name.\n", len(options))
	}
}
