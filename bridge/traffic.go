package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/internal/netguard"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// exchange is one model call the agent made: the request as decoded and
// the answer, or the error it was answered with.
type exchange struct {
	req   *llm.Request
	resp  *llm.Response
	err   error
	retry bool // a failed call repeated as it was: this is its next attempt
	// entry is the tape entry a replay served the call from; -1 live, or
	// when it served none.
	entry int
}

// traffic is the llm.Model behind the handler: it passes each request to
// the model (the tape, or a live model) and keeps the exchange, and turns
// what it sees into the events a harness.Recorder builds an outcome from:
// a model request (or a model retry, when a failed request comes again
// unchanged), and, when the next request arrives, the workspace's change
// since the previous one as the previous turn's file effects and its end.
type traffic struct {
	model    llm.Model
	ws       workspace.FS
	observe  agent.Observer
	mu       sync.Mutex
	log      []exchange
	files    map[string]fileStat // the workspace at the last scan
	scanned  time.Time           // when the last scan began
	open     bool                // a turn answered and its diff not yet closed
	attempts int                 // failed attempts of the current call so far
	calls    int                 // the model calls so far, a retry not counted: the events' ModelCall
	diverged error
	users    []spoken // the user turns the agent went on with
	answers  []spoken // the answers the agent reported (Run.Final)
	// answeredByTurn, made by finish, holds per turn index the answers
	// reported after it that the golden shows (see answersShown).
	answeredByTurn map[int][]string
	// place writes the workspace's path as WorkPlaceholder in requests and
	// back in answers; nil when the agent sees the placeholder's path.
	place *workPlace
}

// setWorkspace notes where the agent sees its workspace: dir, which
// requests name as WorkPlaceholder and answers as dir.
func (t *traffic) setWorkspace(dir string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.place = newWorkPlace(dir)
}

// workPlace returns where the agent sees its workspace (setWorkspace).
func (t *traffic) workPlace() *workPlace {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.place
}

// newTraffic returns the traffic to model over the workspace ws, whose
// events go to observe, after a first scan of ws. When contents is not
// nil, that scan also reads each file into it: the baseline a recorder
// needs, from the same listing.
func newTraffic(model llm.Model, ws workspace.FS, observe agent.Observer, contents map[string]workspace.Entry) (*traffic, error) {
	t := &traffic{model: model, ws: ws, observe: observe}
	files, at, err := t.scan(contents)
	if err != nil {
		return nil, err
	}
	t.files, t.scanned = files, at
	return t, nil
}

// Generate answers one request: it closes the previous turn's diff, notes
// the request (or the retry), asks the model and keeps the exchange. Calls
// are served one at a time, in the order they take the lock.
func (t *traffic) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.closeTurn(); err != nil {
		return nil, err
	}
	ex := exchange{req: req}
	if n := len(t.log); n > 0 && t.log[n-1].err != nil && reflect.DeepEqual(t.log[n-1].req, req) {
		prev := t.log[n-1]
		t.attempts++
		ex.retry = true
		t.observe(agent.Event{Kind: agent.EventModelRetry, ModelCall: t.calls, Attempt: t.attempts, ErrorKind: errorKind(prev.err), Error: prev.err.Error()})
	} else {
		t.attempts = 0
		t.calls++
		t.observe(agent.Event{Kind: agent.EventModelRequest, ModelCall: t.calls, Request: req})
	}
	// The model is the tape, which sends nothing, or a live one, whose
	// requests to its vendor are tapeloop's own and pass the guard of
	// http.DefaultTransport (the handler's context is the server's, not
	// the run's).
	//
	// The model (the tape, a recorder, a vendor) sees the workspace as
	// WorkPlaceholder, the agent its own folder: the events keep what the
	// agent sent and got.
	sent, live := t.place.request(req), netguard.Live(ctx)
	if fw := wire.ForwardedOf(ctx); fw != nil && t.place != nil {
		if b := t.place.placeJSON(fw.Body); !bytes.Equal(b, fw.Body) {
			c := *fw
			c.Body = b
			live = wire.WithForwarded(live, &c)
		}
	}
	ex.resp, ex.err = t.model.Generate(live, sent)
	ex.resp = t.place.answer(ex.resp)
	ex.entry = -1
	if tape, ok := t.model.(interface{ LastServed() int }); ok {
		ex.entry = tape.LastServed()
	}
	if ex.err != nil && t.diverged == nil && (errors.Is(ex.err, replay.ErrDiverged) || errors.Is(ex.err, replay.ErrTapeExhausted)) {
		t.diverged = ex.err
	}
	t.open = ex.err == nil
	t.log = append(t.log, ex)
	if ex.err != nil {
		t.observe(agent.Event{Kind: agent.EventModelError, ModelCall: t.calls, Attempt: t.attempts + 1, ErrorKind: errorKind(ex.err), Error: ex.err.Error()})
	} else {
		t.observe(agent.Event{Kind: agent.EventModelResponse, ModelCall: t.calls, Response: ex.resp, Attempt: t.attempts + 1})
	}
	return ex.resp, ex.err
}

// refuse fails the run with reason, a request the bridge refused (one no
// wire format claims, or that does not decode), unless it diverged before.
func (t *traffic) refuse(reason error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.diverged == nil {
		t.diverged = fmt.Errorf("%w: %w", ErrRefused, reason)
	}
}

// closeTurn ends the open turn, if any: the files that may have changed in
// the workspace since the last scan become its file effects, which the
// recorder compares by content (a file reported that did not change shows
// no diff; one that changed and is not reported would be lost, so in doubt
// a file is reported). Changes made while no turn is open (before the
// first call, after a failed one) are left to the next.
func (t *traffic) closeTurn() error {
	if !t.open {
		return nil
	}
	files, at, err := t.scan(nil)
	if err != nil {
		return err
	}
	var effects []tools.Effect
	still := 0 // files of the last scan still there
	for _, p := range sortedKeys(files) {
		old, existed := t.files[p]
		switch {
		case !existed:
			effects = append(effects, tools.Effect{File: &tools.FileEffect{Op: tools.OpCreate, Path: p, Bytes: files[p].size}})
			continue
		case t.mayDiffer(old, files[p]):
			effects = append(effects, tools.Effect{File: &tools.FileEffect{Op: tools.OpModify, Path: p, Bytes: files[p].size}})
		}
		still++
	}
	if still < len(t.files) { // some are gone
		for _, p := range sortedKeys(t.files) {
			if _, ok := files[p]; !ok {
				effects = append(effects, tools.Effect{File: &tools.FileEffect{Op: tools.OpDelete, Path: p}})
			}
		}
	}
	t.files, t.scanned = files, at
	if len(effects) > 0 {
		t.observe(agent.Event{Kind: agent.EventToolEnd, Result: &tools.Result{Effects: effects}})
	}
	t.observe(agent.Event{Kind: agent.EventTurnEnd})
	t.open = false
	return nil
}

// errorKind is a failed call's kind when a provider classified it.
func errorKind(err error) llm.ErrorKind {
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return ""
}

// fileStat is what a scan notes of a file, instead of reading it.
type fileStat struct {
	size  int64
	mode  fs.FileMode
	mtime int64  // modification time, ns
	ctime int64  // status change time, ns; with ino only when known
	ino   uint64 // inode number
	known bool   // ctime and ino are known
}

// racyWindow is how far before a scan a file's last change must lie for
// an unchanged status to prove unchanged content: file times are coarse
// (a clock tick on Linux, 2 s on FAT), so a file changed just before a scan
// can change again after it within the same tick, keeping size and times.
// Such a file is always reported.
const racyWindow = 2 * time.Second

// mayDiffer reports whether a file noted as old at the last scan may have
// other content now: its status differs, its change time is unknown, or it
// last changed within racyWindow of that scan.
func (t *traffic) mayDiffer(old, cur fileStat) bool {
	return !old.known || !cur.known || old != cur ||
		old.ctime >= t.scanned.Add(-racyWindow).UnixNano()
}

// scan notes the status of every entry of the workspace but directories
// (files, symbolic links, special files), and when it began; with contents
// not nil, it also reads each entry into it (workspace.ReadEntry: a link's
// target, never followed; a special file's kind, never opened). An entry
// gone between listing and status is left out (deleted). The status is the
// listing's (fs.DirEntry.Info: the entry's own, not a link's target's,
// which the listing of a disk workspace may already hold, saving a stat).
func (t *traffic) scan(contents map[string]workspace.Entry) (map[string]fileStat, time.Time, error) {
	at := time.Now()
	files := make(map[string]fileStat, len(t.files))
	err := t.ws.Walk(func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		}
		st := fileStat{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime().UnixNano()}
		st.ctime, st.ino, st.known = changeOf(fi)
		files[p] = st
		if contents != nil {
			e, err := workspace.ReadEntry(t.ws, p)
			if errors.Is(err, fs.ErrNotExist) {
				delete(files, p)
				return nil
			}
			if err != nil {
				return err
			}
			contents[p] = e
		}
		return nil
	})
	return files, at, err
}

// sortedKeys returns m's keys in order, in one allocation.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
