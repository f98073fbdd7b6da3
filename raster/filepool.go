package raster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrChanged reports a local file that was replaced, truncated or rewritten
// on disk after it was opened: its parsed header no longer describes its
// bytes, so reading on would return wrong values. It wraps ErrCorrupt.
var ErrChanged = fmt.Errorf("raster: file changed on disk since it was opened: %w", ErrCorrupt)

// FilePool bounds the file descriptors held by the [FileSource]s opened
// through it. A FileSource keeps its path and the identity of the file
// (device and inode, size, modification time) and borrows a descriptor
// from the pool for each ReadAt: a source read recently keeps its
// descriptor, the least recently used idle one is closed when the pool is
// full and reopened on the next read. The pool's lock is never held
// during a read, and a descriptor in use (pinned) is never closed, so
// when more reads than the bound are in flight at once the pool goes over
// its bound until they end.
//
// Without a pool a layer of 34,000 tiles would hold 34,000 descriptors
// and fail with EMFILE ("too many open files") at state size.
type FilePool struct {
	mu   sync.Mutex
	max  int
	open int // descriptors held, pinned or idle
	// head and tail of the sources with an unpinned descriptor, most
	// recent first (an intrusive list: parking allocates nothing).
	head, tail *FileSource
}

// NewFilePool returns a pool holding at most n descriptors (at least 1).
func NewFilePool(n int) *FilePool {
	return &FilePool{max: max(n, 1)}
}

// Open opens the local file at path as a [Source] borrowing descriptors
// from p. It returns the *os.PathError of os.Open or os.Stat. The caller
// closes it.
func (p *FilePool) Open(path string) (*FileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	s := &FileSource{pool: p, path: path, info: st, size: st.Size()}
	p.mu.Lock()
	p.open++
	s.f = f
	victims := p.park(s)
	p.mu.Unlock()
	closeAll(victims)
	return s, nil
}

// Max returns the bound of the pool.
func (p *FilePool) Max() int { return p.max }

// Held returns the number of descriptors the pool holds now.
func (p *FilePool) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// FileSource is a [Source] reading a local file through a [FilePool].
type FileSource struct {
	pool *FilePool
	path string
	info os.FileInfo // identity at the first open
	size int64
	// openMu serialises reopening, so concurrent readers of an evicted
	// source open it once.
	openMu sync.Mutex
	// Guarded by pool.mu:
	f          *os.File
	pins       int
	idle       bool        // in the pool's idle list (f != nil && pins == 0)
	prev, next *FileSource // neighbours in the idle list
	closed     bool
}

// OpenFile opens the local file at path as a [Source] in the process-wide
// pool ([DefaultFilePool]). The caller closes it. It returns the
// *os.PathError of os.Open or os.Stat.
func OpenFile(path string) (*FileSource, error) {
	return DefaultFilePool().Open(path)
}

var defaultPool = sync.OnceValue(func() *FilePool { return NewFilePool(defaultPoolSize()) })

// DefaultFilePool returns the process-wide pool. Descriptors are a
// process-wide resource (RLIMIT_NOFILE), so one pool serves every layer:
// its bound is a quarter of the soft limit when it is first used, between
// 16 and 4,096, leaving the rest to sockets, SQLite packs and logs.
func DefaultFilePool() *FilePool { return defaultPool() }

// poolSizeFor derives the default bound from the soft descriptor limit.
func poolSizeFor(soft uint64) int {
	return int(min(max(soft/4, 16), 4096))
}

// ReadAt reads len(p) bytes at off; ctx is only checked before reading
// because local reads do not block for long. A source whose file changed
// on disk since it was opened answers ErrChanged once its descriptor has
// been recycled.
func (s *FileSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	f, err := s.acquire()
	if err != nil {
		return 0, err
	}
	n, err := f.ReadAt(p, off)
	s.release()
	return n, err
}

// Size returns the file size in bytes at the time of OpenFile.
func (s *FileSource) Size() int64 { return s.size }

// Close releases the source's descriptor (at the end of a read in flight).
func (s *FileSource) Close() error {
	p := s.pool
	p.mu.Lock()
	if s.closed {
		p.mu.Unlock()
		return nil
	}
	s.closed = true
	var f *os.File
	if s.f != nil && s.pins == 0 {
		f = s.drop()
	}
	p.mu.Unlock()
	if f != nil {
		return f.Close()
	}
	return nil
}

// acquire pins the source's descriptor, reopening the file if it was
// evicted.
func (s *FileSource) acquire() (*os.File, error) {
	p := s.pool
	if f, ok, err := s.pin(); ok || err != nil {
		return f, err
	}
	s.openMu.Lock()
	defer s.openMu.Unlock()
	if f, ok, err := s.pin(); ok || err != nil { // opened meanwhile
		return f, err
	}
	f, err := s.reopen()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if s.closed { // closed while reopening
		p.mu.Unlock()
		_ = f.Close()
		return nil, fmt.Errorf("raster: read: %w", os.ErrClosed)
	}
	p.open++
	s.f, s.pins = f, 1
	victims := p.evict()
	p.mu.Unlock()
	closeAll(victims)
	return f, nil
}

// pin pins a held descriptor; ok is false when the source has none.
func (s *FileSource) pin() (*os.File, bool, error) {
	p := s.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.closed {
		return nil, false, fmt.Errorf("raster: read: %w", os.ErrClosed)
	}
	if s.f == nil {
		return nil, false, nil
	}
	if s.idle {
		p.unlink(s)
	}
	s.pins++
	return s.f, true, nil
}

// reopen opens the file again and checks it is the one first opened.
func (s *FileSource) reopen() (*os.File, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrChanged
	}
	if err != nil {
		return nil, fmt.Errorf("raster: reopen: %w", errors.Unwrap(err))
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("raster: reopen: %w", errors.Unwrap(err))
	}
	if !os.SameFile(st, s.info) || st.Size() != s.info.Size() || !st.ModTime().Equal(s.info.ModTime()) {
		_ = f.Close()
		return nil, ErrChanged
	}
	return f, nil
}

// release unpins the descriptor; the last reader parks it as idle, or
// closes it when the source was closed or the pool is over its bound.
func (s *FileSource) release() {
	p := s.pool
	p.mu.Lock()
	s.pins--
	var victims []*os.File
	if s.pins == 0 {
		if s.closed {
			victims = append(victims, s.drop())
		} else {
			victims = p.park(s)
		}
	}
	p.mu.Unlock()
	closeAll(victims)
}

// park puts an unpinned source at the front of the idle list and evicts
// over the bound. p.mu is held.
func (p *FilePool) park(s *FileSource) []*os.File {
	s.prev, s.next, s.idle = nil, p.head, true
	if p.head != nil {
		p.head.prev = s
	} else {
		p.tail = s
	}
	p.head = s
	return p.evict()
}

// evict drops idle descriptors, least recent first, while the pool is
// over its bound, and returns them to close outside the lock. p.mu is held.
func (p *FilePool) evict() []*os.File {
	var victims []*os.File
	for p.open > p.max {
		if p.tail == nil {
			break // every descriptor is pinned
		}
		victims = append(victims, p.tail.drop())
	}
	return victims
}

// drop takes the descriptor away from an unpinned source. pool.mu is held.
func (s *FileSource) drop() *os.File {
	if s.idle {
		s.pool.unlink(s)
	}
	f := s.f
	s.f = nil
	s.pool.open--
	return f
}

// unlink takes s out of the idle list. p.mu is held.
func (p *FilePool) unlink(s *FileSource) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		p.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		p.tail = s.prev
	}
	s.prev, s.next, s.idle = nil, nil, false
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}
