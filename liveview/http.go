package liveview

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// The HTTP side: routing, request checks, JSON answers. Every /api/ answer
// is JSON; an error is {"error": "..."} (with more fields for some) and a
// 4xx status for a bad request: 400 malformed, 403 refused (host or
// origin), 404 unknown endpoint, agent, tree, rule or breakpoint, 405 wrong
// method, 409 not possible in the game's state (travelling while running),
// 413 body too large, 422 a value out of range, 501 not available in this
// run; 503 when the game cannot answer (busy, ended).

//go:embed web
var webFiles embed.FS

// maxBody bounds a request's body.
const maxBody = 64 << 10

// Handler serves the page and the API.
func (d *Debugger) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkRequest(r, d.opts.Host); err != nil {
			writeError(w, err)
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				writeError(w, &apiError{code: http.StatusMethodNotAllowed, msg: r.Method + " " + r.URL.Path + ": the page's files are read with GET", extra: map[string]any{"allow": "GET, HEAD"}})
				return
			}
			serveFile(w, r)
			return
		}
		d.route(w, r)
	})
}

// serveFile serves the page's files: web/NAME as /NAME, index.html as /.
func serveFile(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	data, err := fs.ReadFile(webFiles, "web/"+name)
	if err != nil || strings.Contains(name, "/") {
		writeError(w, errorf(http.StatusNotFound, "no such file: %s", r.URL.Path))
		return
	}
	types := map[string]string{".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}
	ct := types[path.Ext(name)]
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(data)
}

// checkRequest is the live view's guard against other sites, for every
// handler (the page's files, the API, and any handler added beside them):
// it returns the 403 to answer (for writeError), or nil.
//
//   - The Host header must name this machine: an IP address, localhost, or
//     hostName (the name the view was asked to listen on, "" none), with
//     at most a numeric port. A page of another site whose name was made to
//     resolve to this machine (DNS rebinding) sends its own name.
//   - A request that can change something (every method but GET and HEAD)
//     must come from the live view's own page or from a tool: its Origin
//     header, when it has one, must be exactly this server's origin,
//     scheme, host and port ("http://127.0.0.1:7070" for a server reached
//     as 127.0.0.1:7070). Browsers send Origin with every such request, so
//     another site's page (another port of the same host included) cannot
//     command the game; reads from other origins are left to the browser's
//     same-origin policy.
func checkRequest(r *http.Request, hostName string) error {
	if !hostAllowed(r.Host, hostName) {
		return errorf(http.StatusForbidden, "host %q is not allowed: the live view answers requests to an IP address, localhost or the name it was started with", r.Host)
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	if o, ok := r.Header["Origin"]; ok && (len(o) != 1 || !sameOrigin(o[0], r)) {
		return errorf(http.StatusForbidden, "cross-origin request refused (Origin %q): the live view accepts commands from its own page (%s) and from tools that send no Origin", strings.Join(o, ", "), ownOrigin(r))
	}
	return nil
}

// hostAllowed reports whether a Host header names this machine (see
// checkRequest).
func hostAllowed(host, hostName string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		h, port = host, ""
	}
	if strings.Trim(port, "0123456789") != "" {
		return false
	}
	h = strings.Trim(h, "[]")
	switch {
	case h == "":
		return false
	case net.ParseIP(h) != nil, strings.EqualFold(h, "localhost"):
		return true
	}
	return hostName != "" && strings.EqualFold(h, hostName)
}

// ownOrigin is the origin of the server a request was sent to, as a
// browser writes it: scheme://host[:port], without a default port.
func ownOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(withoutDefaultPort(scheme, r.Host))
}

// sameOrigin reports whether an Origin header is exactly the origin of the
// server r was sent to: the same scheme, host and port, and nothing else.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme+"://"+strings.ToLower(withoutDefaultPort(scheme, u.Host)) == ownOrigin(r)
}

// withoutDefaultPort drops a port that is the scheme's default, as
// browsers do in origins ("localhost:80" is "localhost" for http).
func withoutDefaultPort(scheme, host string) string {
	if h, port, err := net.SplitHostPort(host); err == nil && (scheme == "http" && port == "80" || scheme == "https" && port == "443") {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return host
}

// route dispatches /api/... requests.
func (d *Debugger) route(w http.ResponseWriter, r *http.Request) {
	var seg []string
	for _, s := range strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/api/"), "/") {
		u, err := url.PathUnescape(s)
		if err != nil {
			writeError(w, errorf(http.StatusBadRequest, "bad path %q: %v", r.URL.EscapedPath(), err))
			return
		}
		seg = append(seg, u)
	}
	if d.routeEditor(w, r, seg) { // editor_http.go
		return
	}
	if d.routeSaves(w, r, seg) { // open_save.go
		return
	}
	n := len(seg)
	switch {
	case n == 1 && seg[0] == "status":
		if method(w, r, "GET") {
			d.call(w, r, func(*request) (any, error) { return d.statusView(), nil })
		}
	case n == 1 && seg[0] == "agents":
		if method(w, r, "GET") {
			d.call(w, r, d.cmdAgents)
		}
	case n == 2 && seg[0] == "agents":
		if method(w, r, "GET") {
			d.call(w, r, func(*request) (any, error) { return d.cmdAgent(seg[1]) })
		}
	case n == 3 && seg[0] == "agents" && seg[2] == "signal":
		var body struct {
			Signal *string          `json:"signal"`
			Data   *json.RawMessage `json:"data"`
		}
		if !method(w, r, "POST") || !decode(w, r, &body) || !need(w, body.Signal != nil && *body.Signal != "", `"signal" (the signal's name) is required`) {
			return
		}
		data, err := dataFromJSON(body.Data)
		if err != nil {
			writeError(w, errorf(http.StatusUnprocessableEntity, `"data": %v`, err))
			return
		}
		d.call(w, r, func(*request) (any, error) { return d.cmdSignal(seg[1], *body.Signal, data) })
	case n == 3 && seg[0] == "agents" && seg[2] == "var":
		var body struct {
			Name  *string          `json:"name"`
			Value *json.RawMessage `json:"value"`
		}
		if !method(w, r, "POST") || !decode(w, r, &body) || !need(w, body.Name != nil && *body.Name != "", `"name" (the variable's name) is required`) ||
			!need(w, body.Value != nil, `"value" (the variable's new value: true or false, a number, a string, or {"x","y","z"} for a vector) is required`) {
			return
		}
		data, err := dataFromJSON(body.Value)
		if err != nil {
			writeError(w, errorf(http.StatusUnprocessableEntity, `"value": %v`, err))
			return
		}
		d.call(w, r, func(*request) (any, error) { return d.cmdSetVar(seg[1], *body.Name, data) })
	case n == 3 && seg[0] == "agents" && seg[2] == "jump":
		var body struct {
			Rule *string `json:"rule"`
		}
		if method(w, r, "POST") && decode(w, r, &body) && need(w, body.Rule != nil && *body.Rule != "", `"rule" (the id of the rule to jump to) is required`) {
			d.call(w, r, func(*request) (any, error) { return d.cmdJump(seg[1], *body.Rule) })
		}
	case n == 1 && seg[0] == "trees":
		if method(w, r, "GET") {
			d.call(w, r, d.cmdTrees)
		}
	case n == 2 && seg[0] == "trees":
		if method(w, r, "GET") {
			d.call(w, r, func(*request) (any, error) { return d.cmdTree(seg[1]) })
		}
	case n == 1 && seg[0] == "gates":
		if method(w, r, "GET") {
			d.call(w, r, d.cmdGates)
		}
	case n == 1 && seg[0] == "events":
		if method(w, r, "GET") {
			d.events(w, r)
		}
	case n == 1 && seg[0] == "pause":
		if method(w, r, "POST") && decode(w, r, &struct{}{}) {
			d.call(w, r, d.cmdPause)
		}
	case n == 1 && seg[0] == "resume":
		if method(w, r, "POST") && decode(w, r, &struct{}{}) {
			d.call(w, r, d.cmdResume)
		}
	case n == 1 && seg[0] == "step":
		var body struct {
			Steps *int64 `json:"steps"`
		}
		if method(w, r, "POST") && decode(w, r, &body) {
			steps := int64(1)
			if body.Steps != nil {
				steps = *body.Steps
			}
			if steps < 1 || steps > maxStepsPerAsk {
				writeError(w, errorf(http.StatusUnprocessableEntity, `"steps" must be from 1 to %d, not %d`, maxStepsPerAsk, steps))
				return
			}
			d.call(w, r, func(req *request) (any, error) { return d.cmdStep(req, int(steps)) })
		}
	case n == 1 && seg[0] == "speed":
		var body struct {
			Speed json.RawMessage `json:"speed"`
		}
		if method(w, r, "POST") && decode(w, r, &body) && need(w, !isNull(body.Speed), `"speed" is required: a number (1 is real time, 2 twice as fast) or "fast"`) {
			speed, err := parseSpeed(body.Speed)
			if err != nil {
				writeError(w, err)
				return
			}
			d.call(w, r, func(*request) (any, error) { return d.cmdSpeed(speed) })
		}
	case n == 1 && seg[0] == "breakpoints":
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			d.call(w, r, func(*request) (any, error) { return d.statusView().Breakpoints, nil })
		case http.MethodPost:
			var body bpRequest
			if decode(w, r, &body) && need(w, !isNull(body.Rule), `"rule" is required: the rule's id or label, or its index in the tree`) &&
				need(w, body.Tree != "" || body.Agent != "", `"tree" or "agent" is required: the tree the rule is in, or the one agent to stop`) {
				d.call(w, r, func(*request) (any, error) { return d.cmdAddBreakpoint(body) })
			}
		default:
			methodNotAllowed(w, r, "GET, POST")
		}
	case n == 2 && seg[0] == "breakpoints":
		if method(w, r, "DELETE") {
			d.call(w, r, func(*request) (any, error) { return d.cmdDeleteBreakpoint(seg[1]) })
		}
	case n == 1 && seg[0] == "travel":
		var body struct {
			Step *uint64 `json:"step"`
		}
		if method(w, r, "POST") && decode(w, r, &body) && need(w, body.Step != nil, `"step" (the step to show) is required`) {
			d.call(w, r, func(*request) (any, error) { return d.cmdTravel(*body.Step) })
		}
	case n == 1 && seg[0] == "reload":
		if method(w, r, "POST") && decode(w, r, &struct{}{}) {
			d.call(w, r, d.cmdReload)
		}
	case n == 1 && seg[0] == "quit":
		if method(w, r, "POST") && decode(w, r, &struct{}{}) {
			d.call(w, r, d.cmdQuit)
		}
	default:
		writeError(w, errorf(http.StatusNotFound, "no such endpoint: %s %s (docs/debug.md lists them)", r.Method, r.URL.Path))
	}
}

// method reports whether r uses the method an endpoint takes (GET also
// takes HEAD), else answers 405.
func method(w http.ResponseWriter, r *http.Request, m string) bool {
	if r.Method == m || m == "GET" && r.Method == http.MethodHead {
		return true
	}
	methodNotAllowed(w, r, m)
	return false
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, &apiError{code: http.StatusMethodNotAllowed, msg: r.Method + " " + r.URL.Path + ": this endpoint takes " + allow,
		extra: map[string]any{"allow": allow}})
}

// need answers 400 with msg unless ok.
func need(w http.ResponseWriter, ok bool, msg string) bool {
	if !ok {
		writeError(w, errorf(http.StatusBadRequest, "%s", msg))
	}
	return ok
}

// decode reads a JSON object body into v (an empty body leaves v as it
// is); unknown fields, trailing data and bodies over maxBody are errors.
func decode(w http.ResponseWriter, r *http.Request, v any) bool { return decodeUpTo(w, r, v, maxBody) }

// decodeUpTo is decode for bodies of at most limit bytes.
func decodeUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64) bool {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, errorf(http.StatusRequestEntityTooLarge, "the body is larger than %d bytes", limit))
		} else {
			writeError(w, errorf(http.StatusBadRequest, "reading the body: %v", err))
		}
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, errorf(http.StatusBadRequest, "the body is not the JSON object this endpoint takes: %v", err))
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, errorf(http.StatusBadRequest, "the body has more after its JSON object"))
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		data, _ = json.Marshal(map[string]string{"error": "encoding the answer: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(data)
	w.Write([]byte("\n"))
}

func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{code: http.StatusInternalServerError, msg: err.Error()}
	}
	body := map[string]any{"error": ae.msg}
	for k, v := range ae.extra {
		body[k] = v
	}
	writeJSON(w, ae.code, body)
}
