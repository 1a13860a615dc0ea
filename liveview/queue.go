package liveview

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// A request is work an HTTP handler asks of the game's goroutine. Its state
// decides, once, who has it: the game (taken: it will be answered) or the
// handler that gave up waiting (withdrawn: the game skips it).
type request struct {
	fn    func(*request) (any, error)
	reply chan result // one slot: the game never waits on it
	state atomic.Int32
}

const (
	queued int32 = iota
	taken
	withdrawn
)

type result struct {
	body any
	err  error
}

// apiError is an answer with an HTTP status other than 200.
type apiError struct {
	code  int
	msg   string
	extra map[string]any // more fields of the JSON body
}

func (e *apiError) Error() string { return e.msg }

func errorf(code int, format string, args ...any) *apiError {
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

// call runs fn on the game's goroutine between steps and writes its answer.
func (d *Debugger) call(w http.ResponseWriter, r *http.Request, fn func(*request) (any, error)) {
	res := d.ask(r, fn)
	if res.err != nil {
		writeError(w, res.err)
		return
	}
	writeJSON(w, http.StatusOK, res.body)
}

// ask queues fn and waits for its result (or gives up, see doc.go).
func (d *Debugger) ask(r *http.Request, fn func(*request) (any, error)) result {
	if d.ended.Load() {
		return result{err: errEnded}
	}
	req := &request{fn: fn, reply: make(chan result, 1)}
	select {
	case d.queue <- req:
	default:
		return result{err: errorf(http.StatusServiceUnavailable, "too many requests are waiting for the game (%d); try again", queueLen)}
	}
	t := time.NewTimer(d.opts.Timeout)
	defer t.Stop()
	giveUp := func(msg string) result {
		if req.state.CompareAndSwap(queued, withdrawn) {
			return result{err: errorf(http.StatusServiceUnavailable, "%s", msg)}
		}
		return <-req.reply // the game has it: its answer comes
	}
	select {
	case res := <-req.reply:
		return res
	case <-d.done:
		return giveUp(errEnded.msg)
	case <-r.Context().Done():
		return giveUp("the request was cancelled")
	case <-t.C:
		return giveUp(fmt.Sprintf("the game did not take the request within %v: a step is taking long", d.opts.Timeout))
	}
}

// drain runs the requests queued so far, without waiting.
func (d *Debugger) drain() {
	for {
		select {
		case req := <-d.queue:
			d.exec(req)
		default:
			return
		}
	}
}

// exec runs a request on the game's goroutine and answers it (unless it
// answers later). A panic becomes a 500 answer: the game goes on.
func (d *Debugger) exec(req *request) {
	if !req.state.CompareAndSwap(queued, taken) {
		return
	}
	body, err := d.safely(req)
	if err == errDeferred {
		return
	}
	d.dirty = true
	req.reply <- result{body: body, err: err}
}

func (d *Debugger) safely(req *request) (body any, err error) {
	defer func() {
		if p := recover(); p != nil {
			body, err = nil, errorf(http.StatusInternalServerError, "internal error (please report it): %v", p)
		}
	}()
	return req.fn(req)
}
