package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is an httptest server scripted with turns, recording every request
// body. A request beyond the script gets HTTP 500 and fails the test.
type Server struct {
	*httptest.Server
	t testing.TB

	mu    sync.Mutex // guards turns, bodies, keys, models, refusedKey and abandoned
	turns []Turn
	// respond, when set, picks the turn for each request instead of the script
	// (for concurrent conversations whose order is not fixed).
	respond    func(body map[string]any) Turn
	bodies     []map[string]any
	raw        [][]byte
	keys       []string // the API key of each request, as sent
	models     []string // what a GET of the models list answers (SetModels)
	refusedKey string   // a key it answers 401 to
	abandoned  int      // requests the client gave up on while a Delay held them
}

// SetModels sets the models list the server answers and a key it refuses
// ("" refuses none).
func (s *Server) SetModels(models []string, refusedKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models, s.refusedKey = models, refusedKey
}

func newServer(t testing.TB, turns []Turn, respond func(map[string]any) Turn, answer func(w http.ResponseWriter, r *http.Request, body map[string]any, turn Turn)) *Server {
	s := &Server{t: t, turns: turns, respond: respond}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && (r.URL.Path == "/v1/models" || r.URL.Path == "/v1beta/models") {
			s.listModels(w, r)
			return
		}
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			// The client went away while sending (a run cancelled mid-request):
			// there is nothing to answer, as with a request abandoned later.
			s.mu.Lock()
			s.abandoned++
			s.mu.Unlock()
			return
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("llmtest: request body is not JSON: %v", err)
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.raw = append(s.raw, raw)
		s.keys = append(s.keys, requestKey(r))
		if s.respond != nil {
			s.turns = append(s.turns, s.respond(body))
		}
		if len(s.turns) == 0 {
			n := len(s.bodies)
			s.mu.Unlock()
			t.Errorf("llmtest: unexpected request %d to %s", n, r.URL.Path)
			http.Error(w, `{"error":{"message":"script exhausted"}}`, http.StatusInternalServerError)
			return
		}
		turn := s.turns[0]
		s.turns = s.turns[1:]
		s.mu.Unlock()
		if turn.Delay > 0 {
			select {
			case <-time.After(turn.Delay):
			case <-r.Context().Done():
				s.mu.Lock()
				s.abandoned++
				s.mu.Unlock()
				return
			}
		}
		if turn.RawBody != "" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, turn.RawBody)
			return
		}
		if turn.SSE != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, turn.SSE)
			return
		}
		if turn.CloseMidStream {
			closeMidStream(w)
			return
		}
		if turn.Status != 0 {
			for k, v := range turn.Header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(turn.Status)
			io.WriteString(w, turn.Body)
			return
		}
		answer(w, r, body, turn)
	}))
	t.Cleanup(s.Close)
	return s
}

// listModels answers the models list in the OpenAI or the Gemini shape;
// the refused key gets 401, as both APIs answer a bad key.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	models, refused := s.models, s.refusedKey
	s.mu.Unlock()
	key := requestKey(r)
	if refused != "" && key == refused {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"code":401,"message":"missing API key","status":"UNAUTHENTICATED"}}`)
		return
	}
	var items []any
	for _, m := range models {
		if r.URL.Path == "/v1/models" {
			items = append(items, map[string]any{"id": m, "object": "model", "created": 1, "owned_by": "test"})
		} else {
			items = append(items, map[string]any{"name": "models/" + m, "displayName": m})
		}
	}
	if r.URL.Path == "/v1/models" {
		writeJSON(w, map[string]any{"object": "list", "data": items})
		return
	}
	writeJSON(w, map[string]any{"models": items})
}

// requestKey is the API key r carries, in OpenAI's or Gemini's way.
func requestKey(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("x-goog-api-key") + r.URL.Query().Get("key")
}

// Keys returns the API key each model request carried, in order.
func (s *Server) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// Abandoned counts the requests whose client went away (a cancelled
// context closes the connection) while a Delay held the answer.
func (s *Server) Abandoned() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.abandoned
}

// Requests returns the decoded JSON bodies received so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// Forget drops the bodies received so far, for a benchmark that measures
// the memory of the process this server runs in.
func (s *Server) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies, s.raw = nil, nil
}

// RawRequests returns the bodies as received.
func (s *Server) RawRequests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.raw...)
}

// Remaining is the number of turns not yet played.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

func writeSSE(w http.ResponseWriter, events []any, done bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	for _, e := range events {
		data, _ := json.Marshal(e)
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	if done {
		io.WriteString(w, "data: [DONE]\n\n")
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// closeMidStream sends the start of an SSE answer, then drops the connection.
func closeMidStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
		}
	}
}
