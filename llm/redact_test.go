package llm

import (
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"http://user:PASSWORD@host/v1", "http://***@host/v1"},
		{"https://TOKEN@host:8443/v1/", "https://***@host:8443/v1/"},
		{"http://user:pa/ss@host/v1", "http://***@host/v1"},
		{"http://u:p%40ss@host/v1?x=1", "http://***@host/v1?x=1"},
		{"https://host/v1?key=SECRET&alt=sse", "https://host/v1?key=***&alt=sse"},
		{"https://host/v1?api_key=S1&apiKey=S2&access_token=S3&Token=S4&sig=S5&password=S6", "https://host/v1?api_key=***&apiKey=***&access_token=***&Token=***&sig=***&password=***"},
		{"https://b.s3.amazonaws.com/o?X-Amz-Credential=C&X-Amz-Signature=S&versionId=2", "https://b.s3.amazonaws.com/o?X-Amz-Credential=***&X-Amz-Signature=***&versionId=2"},
		{"https://host/cb#access_token=S&state=ok", "https://host/cb#access_token=***&state=ok"},
		{"https://host/p?client_secret=S#frag", "https://host/p?client_secret=***#frag"},
		{"user:PASSWORD@host/v1", "***@host/v1"},
		{"", ""},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRedactURLsInText(t *testing.T) {
	in := `Post "http://user:PASSWORD@127.0.0.1:1/v1/chat/completions?key=K": dial tcp 127.0.0.1:1: connect: connection refused; fallback openai:gpt@https://T0KEN@h/v1 and mail me at a@b.c`
	want := `Post "http://***@127.0.0.1:1/v1/chat/completions?key=***": dial tcp 127.0.0.1:1: connect: connection refused; fallback openai:gpt@https://***@h/v1 and mail me at a@b.c`
	if got := RedactURLs(in); got != want {
		t.Fatalf("RedactURLs:\n got %s\nwant %s", got, want)
	}
	for _, secret := range []string{"PASSWORD", "T0KEN", "=K"} {
		if strings.Contains(RedactURLs(in), secret) {
			t.Errorf("%s shows", secret)
		}
	}
}
