package llm

import (
	"net/http"
	"sync"
	"time"
)

// SharedHTTPClient is the HTTP client every provider uses unless given one:
// one connection pool for the process, so a run reuses the connections
// (and TLS sessions) of the runs before it instead of leaving one pool of
// its own behind each time (the SDKs each clone a transport per client).
// The response-header timeout fails a server that accepts and never
// answers; it does not bound a stream's body.
var SharedHTTPClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	t.MaxIdleConnsPerHost = 16 // concurrent runs against one provider
	return &http.Client{Transport: t}
})
