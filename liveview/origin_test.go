package liveview

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestOrigin_onlyTheViewsOwnPageCommands: a command (any method but GET and
// HEAD) is accepted from the live view's own origin, exactly its scheme,
// host and port, or from a tool that sends no Origin; a page on the same
// host at another port, a lookalike host, another scheme or an origin that
// is not one is refused, for DELETE as for POST, and changes nothing.
func TestOrigin_onlyTheViewsOwnPageCommands(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	u, err := url.Parse(h.srv.URL) // http://127.0.0.1:PORT
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	own := h.srv.URL
	origin := func(o string) http.Header { return http.Header{"Origin": {o}} }

	// The page's own origin: a same-origin POST and DELETE succeed.
	code, raw := h.raw("POST", "/api/breakpoints", `{"tree":"guard","rule":"guard.fight"}`, origin(own))
	if code != http.StatusOK {
		t.Fatalf("same-origin POST of a breakpoint: %d %s", code, raw)
	}
	if code, raw := h.raw("POST", "/api/step", "", origin(own)); code != http.StatusOK {
		t.Fatalf("same-origin POST /api/step: %d %s", code, raw)
	}
	if code, raw := h.raw("POST", "/api/step", "", nil); code != http.StatusOK {
		t.Fatalf("POST /api/step from a tool (no Origin): %d %s", code, raw)
	}
	before := h.ok("GET", "/api/status", "")

	refused := []struct{ name, method, path, origin string }{
		{"samHostOtherPort", "POST", "/api/step", fmt.Sprintf("http://127.0.0.1:%d", port+1)},
		{"samHostOtherPortDelete", "DELETE", "/api/breakpoints/1", fmt.Sprintf("http://127.0.0.1:%d", port+1)},
		{"crossSiteDelete", "DELETE", "/api/breakpoints/1", "http://evil.example"},
		{"crossSitePut", "PUT", "/api/breakpoints/1", "http://evil.example"},
		{"crossSitePatch", "PATCH", "/api/status", "http://evil.example"},
		{"crossSitePostToThePage", "POST", "/index.html", "http://evil.example"},
		{"lookalikeHost", "POST", "/api/step", own + ".evil.example"},
		{"lookalikeHostDelete", "DELETE", "/api/breakpoints/1", own + ".evil.example"},
		{"lookalikePrefix", "POST", "/api/step", "http://evil.example/" + u.Host},
		{"hostWithoutPort", "POST", "/api/step", "http://127.0.0.1"},
		{"otherScheme", "POST", "/api/step", "https://" + u.Host},
		{"withPath", "POST", "/api/step", own + "/index.html"},
		{"withUser", "POST", "/api/step", "http://me@" + u.Host},
		{"nullOrigin", "POST", "/api/step", "null"},
		{"emptyOrigin", "POST", "/api/quit", ""},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := h.raw(tc.method, tc.path, "", origin(tc.origin))
			if code != http.StatusForbidden || !strings.Contains(string(raw), "cross-origin request refused") {
				t.Errorf("%s %s from %q: %d %s; want 403", tc.method, tc.path, tc.origin, code, raw)
			}
		})
	}
	t.Run("twoOrigins", func(t *testing.T) {
		if code, raw := h.raw("POST", "/api/step", "", http.Header{"Origin": {own, "http://evil.example"}}); code != http.StatusForbidden {
			t.Errorf("two Origin headers: %d %s", code, raw)
		}
	})
	after := h.ok("GET", "/api/status", "")
	if after["step"] != before["step"] || len(after["breakpoints"].([]any)) != 1 {
		t.Errorf("a refused command changed the game: %v then %v", before, after)
	}
	if code, raw := h.raw("DELETE", "/api/breakpoints/1", "", origin(own)); code != http.StatusOK {
		t.Errorf("same-origin DELETE of the breakpoint: %d %s", code, raw)
	}
}

// TestOrigin_hostHeaderNamesThisMachine: a Host header must name this
// machine (an IP address, localhost, the name the view was started with)
// with at most a numeric port; the origin then compared is the one that
// Host names, with a default port or upper case written either way.
func TestOrigin_hostHeaderNamesThisMachine(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true, Host: "devbox.local"})
	for _, tc := range []struct {
		name, method, host, origin string
		code                       int
	}{
		{"otherSite", "GET", "evil.example:7070", "", 403},
		{"lookalikePort", "GET", "127.0.0.1:7070.evil.example", "", 403},
		{"lookalikeLocalhost", "GET", "localhost.evil.example:7070", "", 403},
		{"nameAsPrefix", "GET", "devbox.local.evil.example", "", 403},
		{"empty", "GET", "", "", 403},
		{"portOnly", "GET", ":7070", "", 403},
		{"theStartName", "GET", "devbox.local:7070", "", 200},
		{"theStartNameAnyCase", "GET", "DevBox.Local:7070", "", 200},
		{"localhost", "GET", "localhost:7070", "", 200},
		{"ipv6", "GET", "[::1]:7070", "", 200},
		{"commandFromItsOwnName", "POST", "devbox.local:7070", "http://devbox.local:7070", 200},
		{"commandFromLocalhostDefaultPort", "POST", "localhost:80", "http://localhost", 200},
		{"commandUpperCaseOrigin", "POST", "localhost:7070", "http://LOCALHOST:7070", 200},
		{"commandFromTheOtherName", "POST", "localhost:7070", "http://127.0.0.1:7070", 403},
		{"commandToABadHost", "POST", "evil.example:7070", "http://evil.example:7070", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/status"
			if tc.method == "POST" {
				path = "/api/pause"
			}
			req := httptest.NewRequest(tc.method, path, nil)
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			rec := httptest.NewRecorder()
			h.d.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("%s Host %q Origin %q: %d %s; want %d", tc.method, tc.host, tc.origin, rec.Code, rec.Body, tc.code)
			}
		})
	}
}
