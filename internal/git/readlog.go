package git

import "sync"

// ReadLog records the object names a repository's cat-file readers are
// asked for (commit:path names, object ids, rev^{commit}), each once, in
// the order first asked: what a run read from the object store, for the
// floor of the benchmarks to read again (internal/benchgen/floor).
type ReadLog struct {
	mu    sync.Mutex
	seen  map[string]bool
	names []string
}

// Names returns the names recorded so far.
func (l *ReadLog) Names() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.names...)
}

func (l *ReadLog) add(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	for _, n := range names {
		if !l.seen[n] {
			l.seen[n] = true
			l.names = append(l.names, n)
		}
	}
}

// LogReads makes every object reader of r, those open and those to come,
// record what it is asked in l (nil: stop recording).
func (r *Repo) LogReads(l *ReadLog) { r.readLog.Store(l) }
