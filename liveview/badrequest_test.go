package liveview

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// badRequests are requests the API must refuse with a clear 4xx (or 501)
// answer, a JSON object with "error", and the game untouched.
var badRequests = []struct {
	name, method, path, body string
	code                     int
	says                     string // part of the error message
}{
	{"unknownEndpoint", "GET", "/api/nope", "", 404, "no such endpoint"},
	{"unknownAgent", "GET", "/api/agents/nobody", "", 404, `no agent "nobody"`},
	{"unknownTree", "GET", "/api/trees/nope", "", 404, `no tree "nope"`},
	{"wrongMethod", "PUT", "/api/status", "", 405, "takes GET"},
	{"getACommand", "GET", "/api/pause", "", 405, "takes POST"},
	{"pageWithPost", "POST", "/index.html", "", 405, "read with GET"},
	{"unknownField", "POST", "/api/pause", `{"now":true}`, 400, "unknown field"},
	{"notJSON", "POST", "/api/step", `two steps please`, 400, "not the JSON object"},
	{"trailingData", "POST", "/api/step", `{} {}`, 400, "more after"},
	{"notAnObject", "POST", "/api/step", `[1]`, 400, "not the JSON object"},
	{"zeroSteps", "POST", "/api/step", `{"steps":0}`, 422, "from 1 to"},
	{"negativeSteps", "POST", "/api/step", `{"steps":-3}`, 422, "from 1 to"},
	{"tooManySteps", "POST", "/api/step", `{"steps":99999999}`, 422, "from 1 to"},
	{"stepsAsText", "POST", "/api/step", `{"steps":"two"}`, 400, "not the JSON object"},
	{"noSpeed", "POST", "/api/speed", `{}`, 400, `"speed" is required`},
	{"nullSpeed", "POST", "/api/speed", `{"speed":null}`, 400, `"speed" is required`},
	{"negativeSpeed", "POST", "/api/speed", `{"speed":-1}`, 422, "from 0.01 to 1000"},
	{"zeroSpeed", "POST", "/api/speed", `{"speed":0}`, 422, "from 0.01 to 1000"},
	{"tinySpeed", "POST", "/api/speed", `{"speed":1e-300}`, 422, "from 0.01 to 1000"},
	{"belowTheSlowest", "POST", "/api/speed", `{"speed":0.009}`, 422, "from 0.01 to 1000"},
	{"hugeSpeed", "POST", "/api/speed", `{"speed":1e308}`, 422, "from 0.01 to 1000"},
	{"unknownSpeed", "POST", "/api/speed", `{"speed":"slow"}`, 422, `expected "fast"`},
	{"speedAsList", "POST", "/api/speed", `{"speed":[1]}`, 400, "a number or"},
	{"breakpointWithoutRule", "POST", "/api/breakpoints", `{"tree":"guard"}`, 400, `"rule" is required`},
	{"breakpointNullRule", "POST", "/api/breakpoints", `{"tree":"guard","rule":null}`, 400, `"rule" is required`},
	{"breakpointWithoutTree", "POST", "/api/breakpoints", `{"rule":"guard"}`, 400, `"tree" or "agent"`},
	{"breakpointUnknownRule", "POST", "/api/breakpoints", `{"tree":"guard","rule":"guard.nope"}`, 404, "no rule with id or label"},
	{"breakpointIndexOutOfRange", "POST", "/api/breakpoints", `{"tree":"guard","rule":999}`, 422, "out of range"},
	{"breakpointFractionalIndex", "POST", "/api/breakpoints", `{"tree":"guard","rule":1.5}`, 422, "out of range"},
	{"breakpointNegativeIndex", "POST", "/api/breakpoints", `{"tree":"guard","rule":-1}`, 422, "out of range"},
	{"breakpointRuleAsBool", "POST", "/api/breakpoints", `{"tree":"guard","rule":true}`, 400, "id or label"},
	{"breakpointUnknownTree", "POST", "/api/breakpoints", `{"tree":"nope","rule":1}`, 404, `no tree "nope"`},
	{"breakpointUnknownAgent", "POST", "/api/breakpoints", `{"agent":"nobody","rule":1}`, 404, `no agent`},
	{"breakpointTreeMismatch", "POST", "/api/breakpoints", `{"agent":"guard-1","tree":"other","rule":1}`, 422, "runs tree"},
	{"deleteBreakpointByName", "DELETE", "/api/breakpoints/first", "", 400, "by its number"},
	{"deleteUnknownBreakpoint", "DELETE", "/api/breakpoints/99", "", 404, "no breakpoint 99"},
	{"signalWithoutName", "POST", "/api/agents/guard-1/signal", `{}`, 400, `"signal"`},
	{"signalEmptyName", "POST", "/api/agents/guard-1/signal", `{"signal":""}`, 400, `"signal"`},
	{"signalNameAsNumber", "POST", "/api/agents/guard-1/signal", `{"signal":5}`, 400, "not the JSON object"},
	{"signalLongName", "POST", "/api/agents/guard-1/signal", `{"signal":"` + strings.Repeat("x", 300) + `"}`, 422, "at most 200"},
	{"signalWithCarriageReturn", "POST", "/api/agents/guard-1/signal", `{"signal":"Alarm\rbtrun: all clear"}`, 400, "control characters"},
	{"signalWithEscape", "POST", "/api/agents/guard-1/signal", `{"signal":"\u001b[2JAlarm"}`, 400, "control characters"},
	{"signalWithNewline", "POST", "/api/agents/guard-1/signal", `{"signal":"Alarm\nt=9.00 guard-2 fake line"}`, 400, "control characters"},
	{"signalWithTab", "POST", "/api/agents/guard-1/signal", `{"signal":"Al\tarm"}`, 400, "control characters"},
	{"signalWithNUL", "POST", "/api/agents/guard-1/signal", `{"signal":"Alarm\u0000"}`, 400, "control characters"},
	{"signalWithC1Control", "POST", "/api/agents/guard-1/signal", `{"signal":"Alarm\u009b2J"}`, 400, "control characters"},
	{"signalUnknownAgent", "POST", "/api/agents/nobody/signal", `{"signal":"Alarm"}`, 404, "no agent"},
	{"jumpWithoutRule", "POST", "/api/agents/guard-1/jump", `{}`, 400, `"rule"`},
	{"travelWithoutStep", "POST", "/api/travel", `{}`, 400, `"step"`},
	{"travelNegative", "POST", "/api/travel", `{"step":-1}`, 400, "not the JSON object"},
	{"travelAhead", "POST", "/api/travel", `{"step":999}`, 422, "has not run yet"},
	{"postGates", "POST", "/api/gates", "", 405, "takes GET"},
	{"oneGate", "GET", "/api/gates/grenade", "", 404, "no such endpoint"},
	{"reloadNotAvailable", "POST", "/api/reload", "", 501, "cannot reload"},
	{"bodyTooLarge", "POST", "/api/step", `{"steps":1` + strings.Repeat(" ", maxBody) + `}`, 413, "larger than"},
}

// TestAPI_badRequests: every bad request gets its 4xx and a JSON error,
// and leaves the game where it was.
func TestAPI_badRequests(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	h.ok("POST", "/api/step", `{"steps":3}`)
	before := h.ok("GET", "/api/status", "")
	for _, tc := range badRequests {
		t.Run(tc.name, func(t *testing.T) {
			code, raw := h.raw(tc.method, tc.path, tc.body, nil)
			var v map[string]any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%d: not a JSON object: %s", code, raw)
			}
			msg, _ := v["error"].(string)
			if code != tc.code || !strings.Contains(msg, tc.says) {
				t.Errorf("%s %s %.60s: %d %q; want %d and %q", tc.method, tc.path, tc.body, code, msg, tc.code, tc.says)
			}
		})
	}
	after := h.ok("GET", "/api/status", "")
	if after["step"] != before["step"] || after["head"] != before["head"] || len(after["breakpoints"].([]any)) != 0 {
		t.Errorf("the bad requests changed the game: %v then %v", before, after)
	}
}

// TestAPI_refusesOtherSites: requests naming another host (DNS rebinding)
// and commands from another site's page are refused; reads from other
// origins are left to the browser's same-origin policy.
func TestAPI_refusesOtherSites(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	tests := []struct {
		name, method, path string
		header             http.Header
		code               int
	}{
		{"rebindingHost", "GET", "/api/status", http.Header{"Host": {"evil.example:7070"}}, 403},
		{"rebindingPage", "GET", "/", http.Header{"Host": {"evil.example"}}, 403},
		{"crossSiteCommand", "POST", "/api/step", http.Header{"Origin": {"http://evil.example"}}, 403},
		{"badOrigin", "POST", "/api/step", http.Header{"Origin": {"::not a url"}}, 403},
		{"crossSiteRead", "GET", "/api/status", http.Header{"Origin": {"http://evil.example"}}, 200},
		{"localhost", "GET", "/api/status", http.Header{"Host": {"localhost:7070"}}, 200},
		{"ipv6Loopback", "GET", "/api/status", http.Header{"Host": {"[::1]:7070"}}, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			if host := tc.header.Get("Host"); host != "" {
				req.Host = host
			} else {
				req.Host = "127.0.0.1:7070"
			}
			for k, v := range tc.header {
				if k != "Host" {
					req.Header[k] = v
				}
			}
			rec := httptest.NewRecorder()
			h.d.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("%d %s", rec.Code, rec.Body)
			}
		})
	}
	if st := h.ok("GET", "/api/status", ""); st["step"] != 0.0 {
		t.Errorf("a refused command ran: %v", st)
	}
}

// TestQueue_withdrawnRequestNeverRuns: a request the game did not take in
// time is answered 503 and never runs, even when the game drains the queue
// later.
func TestQueue_withdrawnRequestNeverRuns(t *testing.T) {
	g := openGame(t, guards, "")
	defer g.Close()
	d := New(g, Options{Timeout: 20 * time.Millisecond})
	ran := false
	req := httptest.NewRequest("GET", "/api/status", nil)
	res := d.ask(req, func(*request) (any, error) { ran = true; return nil, nil })
	if ae, ok := res.err.(*apiError); !ok || ae.code != 503 || !strings.Contains(ae.msg, "did not take") {
		t.Fatalf("%+v", res)
	}
	d.drain()
	if ran {
		t.Error("the withdrawn request ran")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := d.ask(req.WithContext(ctx), func(*request) (any, error) { return nil, nil }); res.err == nil {
		t.Error("a cancelled request was answered 200")
	}
	d.Close()
	if res := d.ask(req, func(*request) (any, error) { return nil, nil }); res.err != errEnded {
		t.Errorf("after Close: %+v", res)
	}
}

// TestAPI_panicInARequestIsAnswered: a panic in a request becomes a 500
// answer; the game goes on.
func TestAPI_panicInARequestIsAnswered(t *testing.T) {
	h := start(t, guards, 200, Options{Paused: true})
	res := h.d.ask(httptest.NewRequest("GET", "/", nil), func(*request) (any, error) { panic("boom") })
	if ae, ok := res.err.(*apiError); !ok || ae.code != 500 || !strings.Contains(ae.msg, "boom") {
		t.Fatalf("%+v", res)
	}
	h.ok("POST", "/api/step", "")
}

// FuzzAPI sends arbitrary requests: none may panic, hang or fail the game;
// every /api answer is JSON, and an error is an object with "error". A
// hang is what a request still unanswered after a minute is: a guard that
// a busy machine does not reach, not a measure of speed.
func FuzzAPI(f *testing.F) {
	for _, tc := range badRequests {
		f.Add(tc.method, tc.path, tc.body)
	}
	for _, p := range []string{"/api/status", "/api/agents", "/api/agents/guard-1", "/api/trees", "/api/trees/guard", "/api/breakpoints"} {
		f.Add("GET", p, "")
	}
	f.Add("POST", "/api/step", `{"steps":2}`)
	f.Add("POST", "/api/travel", `{"step":1}`)
	f.Add("POST", "/api/breakpoints", `{"agent":"guard-2","rule":3}`)
	f.Add("POST", "/api/agents/guard-1/jump", `{"rule":"guard.idle.rest"}`)
	f.Add("POST", "/api/agents/guard-2/signal", `{"signal":"Alarm"}`)
	f.Add("POST", "/api/speed", `{"speed":"fast"}`)
	h := start(f, guards, 100000, Options{Paused: true, Fast: true, Timeout: time.Minute})
	f.Fuzz(func(t *testing.T, method, path, body string) {
		h.t = t
		if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "/api/events") || strings.HasPrefix(path, "/api/quit") ||
			strings.HasPrefix(path, "/api/resume") {
			return // streams, ending the run and running on are not what this looks for
		}
		req, err := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		resp, err := h.srv.Client().Do(req.WithContext(ctx))
		if err != nil {
			t.Fatalf("%s %q %q: %v", method, path, body, err)
		}
		defer resp.Body.Close()
		var v any
		if resp.StatusCode >= 500 && resp.StatusCode != 501 {
			t.Fatalf("%s %q %q: %d", method, path, body, resp.StatusCode)
		}
		if strings.HasPrefix(req.URL.Path, "/api/") && method != "HEAD" {
			if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
				t.Fatalf("%s %q: %d: not JSON: %v", method, path, resp.StatusCode, err)
			}
			m, ok := v.(map[string]any)
			if resp.StatusCode >= 400 && (!ok || m["error"] == nil) {
				t.Fatalf("%s %q: %d without an error: %v", method, path, resp.StatusCode, v)
			}
		}
	})
}
