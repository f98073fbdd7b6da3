#!/usr/bin/python3
"""osm-replicate: a big OSM extract from a small real one, for the memory
curve of `svc import osm` (docs/performance.md). Reads OPL on stdin (from
`osmium cat -f opl SAMPLE.osm.pbf`) and writes OPL of K copies on stdout,
each with ids shifted by k x 2e10 and coordinates by a 26-column grid of
0.0606 deg x 0.031 deg, metadata dropped; nodes, then ways, then relations,
ids ascending (a sorted file, as osmium and Geofabrik write). Pack it with
`osmium cat -F opl -o OUT.osm.pbf -`:

  osmium cat -f opl ../shared/samples/osm/lauf-200115.osm.pbf |
    scripts/osm-replicate.py 790 | osmium cat -F opl -O -o /tmp/state.osm.pbf -

(K=790 of the Lauf sample: 705 MB, 57 M nodes, 9.3 M ways.)
"""
import sys

K = int(sys.argv[1])
OFF = 20_000_000_000
nodes, ways, rels = [], [], []
for l in sys.stdin:
    f = l.rstrip('\n').split(' ')
    d = {x[0]: x[1:] for x in f[1:] if x}
    i = int(f[0][1:])
    if l[0] == 'n':
        nodes.append((i, d.get('T', ''), float(d['x']), float(d['y'])))
    elif l[0] == 'w':
        ways.append((i, d.get('T', ''), [int(x[1:]) for x in d.get('N', '').split(',') if x]))
    elif l[0] == 'r':
        ms = []
        for m in d.get('M', '').split(','):
            if m:
                ref, _, role = m[1:].partition('@')
                ms.append((m[0], int(ref), role))
        rels.append((i, d.get('T', ''), ms))
out = sys.stdout
for k in range(K):
    dx, dy, o = 0.0606 * (k % 26), 0.031 * (k // 26), k * OFF
    out.write(''.join('n%d T%s x%.7f y%.7f\n' % (i + o, t, x + dx, y + dy) for i, t, x, y in nodes))
for k in range(K):
    o = k * OFF
    out.write(''.join('w%d T%s N%s\n' % (i + o, t, ','.join('n%d' % (n + o) for n in nd)) for i, t, nd in ways))
for k in range(K):
    o = k * OFF
    out.write(''.join('r%d T%s M%s\n' % (i + o, t, ','.join('%s%d@%s' % (ty, m + o, r) for ty, m, r in ms)) for i, t, ms in rels))
