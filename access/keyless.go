package access

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
	"sync"
	"time"

	"github.com/svc-geodata/svc/state"
)

// Client identifies a keyless caller: an IPv4 address, or the /64 prefix of
// an IPv6 address (one subscriber usually holds a whole /64, so counting
// single IPv6 addresses would hand out a fresh budget per address).
type Client uint64

// ClientOf returns the Client of a. IPv4 (also IPv4-mapped IPv6) is stored
// under the unallocated prefix ffff:ffff::/32 so it never collides with a
// routable IPv6 /64. The zero Addr gives Client 0.
func ClientOf(a netip.Addr) Client {
	a = a.Unmap()
	if a.Is4() {
		b := a.As4()
		return Client(0xffff_ffff<<32 | uint64(binary.BigEndian.Uint32(b[:])))
	}
	if !a.IsValid() {
		return 0
	}
	b := a.As16()
	return Client(binary.BigEndian.Uint64(b[:8]))
}

// Decision is the outcome of one keyless request.
type Decision struct {
	Allowed    bool
	Limit      int
	Remaining  int           // requests left today after this one
	RetryAfter time.Duration // until 00:00 UTC when refused; a few seconds when Unavailable
	// Unavailable: a shared store (several replicas) could not be asked, so
	// the request can be neither counted nor refused by budget; answer 503.
	Unavailable bool
	Err         error // why Unavailable
}

// Keyless counts one keyless request of c against today's budget and
// decides it. Requests past the limit are refused and not counted further.
func (s *Service) Keyless(c Client) Decision { return s.KeylessN(c, 1) }

// KeylessN counts n calls of c at once (a batch request that costs more
// than one call) and decides like Keyless on the new total.
func (s *Service) KeylessN(c Client, n int) Decision {
	if n < 1 {
		n = 1
	}
	if s.shared != nil {
		return s.sharedKeyless(c, n)
	}
	now := s.now()
	tot := s.keyless.hit(dayOf(now), c, uint32(min(n, 1<<30)))
	d := Decision{Allowed: tot <= s.keyless.limit, Limit: int(s.keyless.limit), Remaining: int(s.keyless.limit) - int(tot)}
	if !d.Allowed {
		d.Remaining, d.RetryAfter = 0, untilMidnight(now)
	}
	return d
}

// KeylessRemaining returns c's remaining keyless requests today without
// counting a request. With a shared store it is what this replica saw at
// c's last request through it (the other replicas' requests since are not
// included).
func (s *Service) KeylessRemaining(c Client) int {
	return max(0, int(s.keyless.limit)-int(s.keyless.peek(dayOf(s.now()), c)))
}

const nShards = 64

// keyless holds the per-client counters of the current UTC day: exact maps
// in shards (to spread lock contention), capped in total, and a count-min
// sketch for clients beyond the cap. The sketch can only overcount, so no
// client ever gets more than the limit.
type keyless struct {
	limit    uint32
	shardCap int
	shards   [nShards]kshard
	over     overflow
	hll      sketches
}

// kshard is one shard of the exact counters. A counter packs today's count
// (low 32 bits) and the count already flushed (high 32 bits) into one map
// value, which costs no more memory than a bare count; dirty lists the
// clients counted since the last flush.
type kshard struct {
	mu     sync.Mutex
	day    int32
	counts map[Client]uint64
	dirty  []Client
	old    []state.ClientCount // increments of an earlier day not yet flushed
	_      [64]byte            // keep hot shards on separate cache lines
}

func newKeyless(limit, maxClients int) *keyless {
	k := &keyless{limit: uint32(limit), shardCap: max(1, maxClients/nShards)}
	for i := range k.shards {
		k.shards[i].counts = map[Client]uint64{}
	}
	return k
}

// mix is the splitmix64 finalizer: a fast bijective hash that spreads
// neighbouring addresses over shards, sketch cells and HLL registers.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func (k *keyless) shard(c Client) *kshard { return &k.shards[mix(uint64(c))>>58] }

// drainDirty appends the unflushed increments of sh, labelled day, and
// marks them flushed. The caller holds sh.mu.
func (sh *kshard) drainDirty(dst []state.ClientCount, day string) []state.ClientCount {
	for _, c := range sh.dirty {
		v := sh.counts[c]
		n, done := uint32(v), uint32(v>>32)
		if n > done {
			dst = append(dst, state.ClientCount{Day: day, Client: uint64(c), Calls: int64(n - done)})
		}
		sh.counts[c] = uint64(n)<<32 | uint64(n)
	}
	sh.dirty = sh.dirty[:0]
	return dst
}

// rollover starts day d in sh, keeping the unflushed increments of the old
// day. The caller holds sh.mu.
func (sh *kshard) rollover(d int32) {
	if sh.day == d {
		return
	}
	sh.old = sh.drainDirty(sh.old, dayString(sh.day))
	sh.day, sh.counts, sh.dirty = d, map[Client]uint64{}, nil
}

// hit counts one request of c on day d and returns c's count including it,
// saturating at limit+1.
func (k *keyless) hit(d int32, c Client, add uint32) uint32 {
	sh := k.shard(c)
	sh.mu.Lock()
	sh.rollover(d)
	v, ok := sh.counts[c]
	n := uint32(v)
	switch {
	case ok && n > k.limit:
		sh.mu.Unlock()
		return n
	case !ok && len(sh.counts) >= k.shardCap:
		sh.mu.Unlock()
		n = k.over.hit(d, c, k.limit, add)
		if n == add {
			k.hll.add(d, c)
		}
		return n
	}
	if n == uint32(v>>32) {
		sh.dirty = append(sh.dirty, c)
	}
	// Saturate just above the limit: the count stays below 2^32 and a
	// refused client stays refused.
	add = min(add, k.limit+1-min(n, k.limit+1))
	add = max(add, 1)
	sh.counts[c] = v + uint64(add)
	sh.mu.Unlock()
	if n == 0 {
		k.hll.add(d, c)
	}
	return n + add
}

// peek returns c's count on day d.
func (k *keyless) peek(d int32, c Client) uint32 {
	sh := k.shard(c)
	sh.mu.Lock()
	sh.rollover(d)
	v, ok := sh.counts[c]
	full := !ok && len(sh.counts) >= k.shardCap
	sh.mu.Unlock()
	if full {
		return k.over.peek(d, c)
	}
	return uint32(v)
}

// restore sets c's count on day d from the store (as flushed).
func (k *keyless) restore(d int32, c Client, calls int64) {
	n := uint64(min(calls, int64(k.limit)+1))
	sh := k.shard(c)
	sh.mu.Lock()
	sh.rollover(d)
	if len(sh.counts) < k.shardCap {
		sh.counts[c] = n<<32 | n
		sh.mu.Unlock()
		return
	}
	sh.mu.Unlock()
	k.over.set(d, c, uint32(n))
}

// drain appends the increments since the last call to dst.
func (k *keyless) drain(dst []state.ClientCount) []state.ClientCount {
	for i := range k.shards {
		sh := &k.shards[i]
		sh.mu.Lock()
		dst = append(dst, sh.old...)
		sh.old = nil
		dst = sh.drainDirty(dst, dayString(sh.day))
		if cap(sh.dirty) > 4096 {
			sh.dirty = nil // do not keep the memory of a burst
		}
		sh.mu.Unlock()
	}
	return k.over.drain(dst)
}

func (k *keyless) drainSketches() []state.Sketch { return k.hll.drain() }

// overflow is a count-min sketch (2 rows) for clients beyond the exact cap;
// its memory is fixed (4 MB). Its increments are flushed like exact ones.
type overflow struct {
	mu    sync.Mutex
	day   int32
	rows  [][2]uint32 // nil until first use
	delta map[Client]uint32
	old   []state.ClientCount
}

const overflowCells = 1 << 19

func (o *overflow) cells(c Client) (uint32, uint32) {
	h := mix(uint64(c) ^ 0x9e3779b97f4a7c15)
	return uint32(h) % overflowCells, uint32(h>>32) % overflowCells
}

// start prepares day d; the caller holds o.mu.
func (o *overflow) start(d int32) {
	if o.rows == nil {
		o.rows, o.delta = make([][2]uint32, overflowCells), map[Client]uint32{}
	}
	if o.day == d {
		return
	}
	old := dayString(o.day)
	for c, n := range o.delta {
		o.old = append(o.old, state.ClientCount{Day: old, Client: uint64(c), Calls: int64(n)})
	}
	clear(o.rows)
	o.day, o.delta = d, map[Client]uint32{}
}

func (o *overflow) estimate(c Client) uint32 {
	a, b := o.cells(c)
	return min(o.rows[a][0], o.rows[b][1])
}

func (o *overflow) hit(d int32, c Client, limit, add uint32) uint32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start(d)
	n := o.estimate(c)
	if n > limit {
		return n
	}
	a, b := o.cells(c)
	add = max(1, min(add, limit+1-n))
	o.rows[a][0] += add
	o.rows[b][1] += add
	o.delta[c] += add
	return o.estimate(c)
}

func (o *overflow) peek(d int32, c Client) uint32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start(d)
	return o.estimate(c)
}

func (o *overflow) set(d int32, c Client, n uint32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.start(d)
	a, b := o.cells(c)
	o.rows[a][0] += n
	o.rows[b][1] += n
}

func (o *overflow) drain(dst []state.ClientCount) []state.ClientCount {
	o.mu.Lock()
	defer o.mu.Unlock()
	dst = append(dst, o.old...)
	o.old = nil
	if len(o.delta) == 0 {
		return dst
	}
	day := dayString(o.day)
	for c, n := range o.delta {
		dst = append(dst, state.ClientCount{Day: day, Client: uint64(c), Calls: int64(n)})
	}
	o.delta = map[Client]uint32{}
	return dst
}

// hllP is the HyperLogLog precision: 2^14 registers of one byte (16 KB per
// month), a standard error of about 0.8 %.
const hllP = 14

// sketches holds the HyperLogLog registers of distinct keyless clients per
// month gathered since the last flush; the store unions them.
type sketches struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *sketches) add(d int32, c Client) {
	month := dayString(d)[:7]
	h := mix(uint64(c) + 0x632be59bd9b4e019)
	idx, rank := h>>(64-hllP), uint8(bits.LeadingZeros64(h<<hllP|1<<(hllP-1))+1)
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	reg := s.m[month]
	if reg == nil {
		reg = make([]byte, 1<<hllP)
		s.m[month] = reg
	}
	reg[idx] = max(reg[idx], rank)
	s.mu.Unlock()
}

func (s *sketches) drain() []state.Sketch {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []state.Sketch
	for m, r := range s.m {
		out = append(out, state.Sketch{Month: m, Registers: r})
	}
	s.m = nil
	return out
}
