# judge.py computes, independently of package measure, the measures of every
# bldg:Building of a CityGML file and prints them as JSON: it parses the file
# with Python's ElementTree and uses other formulas (triangle fans instead of
# Newell vectors, the shoelace formula for plan areas, signed tetrahedra for
# volumes). Usage: python3 judge.py FILE.gml
import sys, json, math
import xml.etree.ElementTree as ET

G = '{http://www.opengis.net/gml}'
CLASSES = ('WallSurface', 'RoofSurface', 'GroundSurface', 'ClosureSurface', 'OuterCeilingSurface', 'OuterFloorSurface')

def local(tag):
    return tag.rsplit('}', 1)[-1]

def is_bldg(tag, name):
    return tag.startswith('{http://www.opengis.net/citygml/building/') and local(tag) == name

def ring(el):
    pl = el.find(G + 'posList')
    if pl is not None:
        v = [float(x) for x in pl.text.split()]
        pts = [tuple(v[i:i + 3]) for i in range(0, len(v), 3)]
    else:
        pts = [tuple(float(x) for x in p.text.split()) for p in el.findall(G + 'pos')]
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts = pts[:-1]
    return pts

def sub(a, b): return (a[0] - b[0], a[1] - b[1], a[2] - b[2])
def cross(a, b): return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
def dot(a, b): return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]

def fan(pts):
    # vector area of a ring as the sum of its fan triangles' cross products
    s = [0.0, 0.0, 0.0]
    for i in range(1, len(pts) - 1):
        c = cross(sub(pts[i], pts[0]), sub(pts[i + 1], pts[0]))
        for k in range(3): s[k] += c[k] / 2
    return s

def shoelace(pts):
    return sum(pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0] * pts[i][1] for i in range(len(pts))) / 2

def polygons(surface):
    out = []
    for p in surface.iter(G + 'Polygon'):
        ext = p.find(G + 'exterior/' + G + 'LinearRing')
        holes = [ring(h) for h in p.findall(G + 'interior/' + G + 'LinearRing')]
        out.append((ring(ext), holes))
    return out

def measures(building):
    owners = {}
    def walk(el, owner):
        for ch in el:
            if is_bldg(ch.tag, 'BuildingPart'):
                walk(ch, ch)
            elif is_bldg(ch.tag, 'boundedBy'):
                for s in ch:
                    if local(s.tag) in CLASSES:
                        ms = [m for m in s if local(m.tag) == 'lod2MultiSurface']
                        for m in ms:
                            owners.setdefault(id(owner), []).extend((local(s.tag), p) for p in polygons(m))
            else:
                walk(ch, owner)
    walk(building, building)
    r = {'ground_plan': 0.0, 'roof_plan': 0.0, 'walls': 0.0, 'roof': [0.0] * 4, 'volume': 0.0}
    for polys in owners.values():
        o = polys[0][1][0][0]
        vol = 0.0
        for cls, (ext, holes) in polys:
            e = [sub(p, o) for p in ext]
            va = fan(e)
            plan = abs(shoelace(e))
            tets = sum(dot(e[0], cross(e[i], e[i + 1])) / 6 for i in range(1, len(e) - 1))
            for h in holes:
                hh = [sub(p, o) for p in h]
                hv = fan(hh)
                sgn = 1 if dot(hv, va) > 0 else -1
                va = [va[k] - sgn * hv[k] for k in range(3)]
                plan -= abs(shoelace(hh))
                tets -= sgn * sum(dot(hh[0], cross(hh[i], hh[i + 1])) / 6 for i in range(1, len(hh) - 1))
            vol += tets
            area = math.sqrt(dot(va, va))
            if cls == 'GroundSurface':
                r['ground_plan'] += plan
            elif cls == 'RoofSurface':
                r['roof_plan'] += plan
                tilt = math.degrees(math.atan2(math.hypot(va[0], va[1]), abs(va[2]))) if area > 0 else 0
                r['roof'][0 if tilt < 10 else 1 if tilt < 30 else 2 if tilt < 45 else 3] += area
            elif cls == 'WallSurface':
                r['walls'] += area
        r['volume'] += abs(vol)
    return r

out = {}
for ev, el in ET.iterparse(sys.argv[1]):
    if is_bldg(el.tag, 'Building'):
        out[el.get(G + 'id')] = measures(el)
        el.clear()
json.dump(out, sys.stdout)
