package diffrecorder

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// Recorder records the changes tools make to a workspace, one turn at a
// time. [New] takes the baseline (every entry: each file's content and
// mode, each link's target, each special file's kind); [Recorder.Record]
// notes the paths that tool effects touched; [Recorder.EndTurn] compares the
// touched paths with the baseline, returns the diff and moves their baseline
// forward.
//
// Only touched paths are compared: a change that no effect reports (a process
// that writes files, say) shows up in the first later turn whose effects touch
// that path. A touched directory (a renamed or removed directory, for
// example) stands for every file beneath it.
//
// A Recorder is safe for concurrent use. The zero Recorder is not usable;
// create one with New.
type Recorder struct {
	w workspace.FS

	mu       sync.Mutex
	baseline map[string]workspace.Entry // entries at the last EndTurn, by cleaned path
	beneath  map[string]int             // by directory, how many baseline files lie beneath it
	touched  map[string]struct{}        // cleaned paths touched this turn
	// files and current are EndTurn's scratch maps, kept empty between
	// turns: the paths to compare, and the current content of those that
	// exist.
	files   map[string]struct{}
	current map[string]workspace.Entry
	renames []move  // renames this turn, in the order recorded
	errs    []error // effects with invalid paths, this turn
}

// move is a rename from one cleaned path to another.
type move struct{ from, to string }

// New returns a Recorder for w whose baseline is every entry of w now, as
// [workspace.Entries] reads them.
func New(w workspace.FS) (*Recorder, error) {
	snap, err := workspace.Entries(w)
	if err != nil {
		return nil, fmt.Errorf("diffrecorder: taking the baseline: %w", err)
	}
	return newRecorder(w, snap), nil
}

// NewFrom returns a Recorder for w whose baseline is snap: every entry of
// w by path, as [workspace.Entries] returns it, for a caller that reads
// them anyway (on disk, each file read is system calls). The Recorder
// copies the map and never changes the contents, so snap stays as it was.
// A nil snap is an empty workspace.
func NewFrom(w workspace.FS, snap map[string]workspace.Entry) *Recorder {
	return newRecorder(w, maps.Clone(snap))
}

// newRecorder returns a Recorder for w with baseline, which it owns.
func newRecorder(w workspace.FS, baseline map[string]workspace.Entry) *Recorder {
	if baseline == nil {
		baseline = map[string]workspace.Entry{}
	}
	r := &Recorder{w: w, baseline: baseline, beneath: map[string]int{}, touched: map[string]struct{}{},
		files: map[string]struct{}{}, current: map[string]workspace.Entry{}}
	for p := range baseline {
		r.countBeneath(p, 1)
	}
	return r
}

// Record notes the paths that the file effects touched: Path, and From for
// renames. Process effects are ignored. An effect whose path is not a valid
// workspace path is reported by the next EndTurn. Record never reads the
// workspace, so it is cheap to call as each tool result arrives.
func (r *Recorder) Record(effects []tools.Effect) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range effects {
		f := e.File
		if f == nil {
			continue
		}
		to, err := workspace.Clean(f.Path)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s effect: %w", f.Op, err))
			continue
		}
		r.touched[to] = struct{}{}
		if f.From == "" {
			continue
		}
		from, err := workspace.Clean(f.From)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s effect: %w", f.Op, err))
			continue
		}
		r.touched[from] = struct{}{}
		r.renames = append(r.renames, move{from, to})
	}
}

// EndTurn renders the change of every path touched since the previous
// EndTurn (or New) and makes their current content the new baseline. Paths
// that were touched but end the turn as they began produce no FileDiff.
//
// If an effect of the turn had an invalid path, or the workspace cannot be
// read, EndTurn returns an error and changes nothing, except that invalid
// effect paths are reported only once.
func (r *Recorder) EndTurn() (TurnDiff, error) {
	return r.endTurn(maxDistinctLines)
}

func (r *Recorder) endTurn(limit int) (TurnDiff, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) > 0 {
		err := errors.Join(r.errs...)
		r.errs = nil
		return TurnDiff{}, fmt.Errorf("diffrecorder: %w", err)
	}

	// The files to compare: touched paths, and files beneath touched
	// directories, before and after the turn.
	files, current := r.files, r.current
	clear(files)
	clear(current)
	for p := range r.touched {
		if err := r.collect(p, files, current); err != nil {
			return TurnDiff{}, fmt.Errorf("diffrecorder: %w", err)
		}
	}

	var out TurnDiff
	var done map[string]bool // paths rendered as renames
	for _, m := range r.renamePairs(files, current) {
		if done == nil {
			done = map[string]bool{}
		}
		old, cur := r.baseline[m.from], current[m.to]
		out.Files = append(out.Files, fileDiff(m.from, m.to, &old, &cur, limit))
		done[m.from], done[m.to] = true, true
	}
	for p := range files {
		if done[p] {
			continue
		}
		old, hadOld := r.baseline[p]
		cur, hasCur := current[p]
		if hadOld == hasCur && old.Equal(cur) {
			continue
		}
		var before, after *workspace.Entry
		if hadOld {
			before = &old
		}
		if hasCur {
			after = &cur
		}
		out.Files = append(out.Files, fileDiff(p, p, before, after, limit))
	}
	slices.SortFunc(out.Files, func(a, b FileDiff) int { return strings.Compare(a.Path, b.Path) })

	for p := range files {
		_, had := r.baseline[p]
		cur, has := current[p]
		switch {
		case has:
			r.baseline[p] = cur
			if !had {
				r.countBeneath(p, 1)
			}
		case had:
			delete(r.baseline, p)
			r.countBeneath(p, -1)
		}
	}
	clear(r.touched)
	clear(files)
	clear(current) // drop the contents until the next turn
	r.renames = nil
	return out, nil
}

// countBeneath adds delta to the count of baseline files beneath each
// directory above the file p, up to the root.
func (r *Recorder) countBeneath(p string, delta int) {
	for d := p; d != "."; {
		d = path.Dir(d)
		if r.beneath[d] += delta; r.beneath[d] == 0 {
			delete(r.beneath, d)
		}
	}
}

// collect adds to files the path p and every entry beneath it, before or
// after the turn, and to current those that exist now.
func (r *Recorder) collect(p string, files map[string]struct{}, current map[string]workspace.Entry) error {
	if _, ok := r.baseline[p]; ok {
		files[p] = struct{}{}
	}
	// Scan the baseline only when p was a directory holding files; most
	// touched paths are files, created or not, and have nothing beneath.
	if r.beneath[p] > 0 {
		prefix := p + "/"
		if p == "." {
			prefix = ""
		}
		for q := range r.baseline {
			if strings.HasPrefix(q, prefix) {
				files[q] = struct{}{}
			}
		}
	}
	// The entry is read as it is: a link is not followed, a special file
	// not opened.
	e, err := workspace.ReadEntry(r.w, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case e.Kind == workspace.KindDir:
		return r.collectDir(p, files, current)
	}
	files[p] = struct{}{}
	current[p] = e
	return nil
}

// collectDir adds every entry beneath the directory dir.
func (r *Recorder) collectDir(dir string, files map[string]struct{}, current map[string]workspace.Entry) error {
	entries, err := r.w.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := e.Name()
		if dir != "." {
			p = path.Join(dir, e.Name())
		}
		switch {
		case e.IsDir():
			if err := r.collectDir(p, files, current); err != nil {
				return err
			}
		default:
			entry, err := workspace.ReadEntry(r.w, p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			files[p] = struct{}{}
			current[p] = entry
		}
	}
	return nil
}

// renamePairs resolves this turn's renames into file moves to render as
// renames: a rename of a directory moves each file beneath it, and a chain
// (a to b, then b to c) becomes one move (a to c). A move is rendered as a
// rename only if its source existed at the start of the turn and is gone,
// and its target is new and exists; each source is used once. The rest of the
// touched files render as creations, deletions and modifications.
func (r *Recorder) renamePairs(files map[string]struct{}, current map[string]workspace.Entry) []move {
	if len(r.renames) == 0 {
		return nil
	}
	origin := map[string]string{} // current path -> path at the start of the turn
	for _, m := range r.renames {
		// The files that this rename moved: new path by old path.
		moved := map[string]string{}
		_, inBaseline := r.baseline[m.from]
		_, movedBefore := origin[m.from]
		if inBaseline || movedBefore {
			moved[m.from] = m.to
		}
		for _, candidates := range []iter.Seq[string]{maps.Keys(files), maps.Keys(origin)} {
			for q := range candidates {
				if rest, ok := strings.CutPrefix(q, m.from+"/"); ok {
					moved[q] = m.to + "/" + rest
				}
			}
		}
		next := map[string]string{}
		for from, to := range moved {
			o, ok := origin[from]
			if !ok {
				o = from
			}
			delete(origin, from)
			next[to] = o
		}
		maps.Copy(origin, next)
	}
	var pairs []move
	used := map[string]bool{}
	for _, to := range slices.Sorted(maps.Keys(origin)) {
		from := origin[to]
		_, hadFrom := r.baseline[from]
		_, hasFrom := current[from]
		_, hadTo := r.baseline[to]
		_, hasTo := current[to]
		if from == to || used[from] || !hadFrom || hasFrom || hadTo || !hasTo {
			continue
		}
		used[from] = true
		pairs = append(pairs, move{from, to})
	}
	return pairs
}
