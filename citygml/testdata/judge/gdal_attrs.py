# gdal_attrs.py prints, as JSON, what GDAL's GML driver reads of the LoD2
# attributes of a CityGML file: per bldg:Building its function, roofType,
# measuredHeight, storeys, creationDate, generic attributes (GDAL gathers
# those of the building and its parts under one name) and the address
# fields of the building and of its parts; per bldg:BuildingPart (through
# the GFS template given as second argument) its own values.
# Usage: python3 gdal_attrs.py FILE.gml parts_attrs.gfs
import sys, json
from osgeo import gdal, ogr
gdal.SetConfigOption('GML_FIELDTYPES', 'ALWAYS_STRING')
gdal.UseExceptions()
path, tpl = sys.argv[1], sys.argv[2]

def lst(v):
    if v is None: return []
    if isinstance(v, list): return [str(x) for x in v]
    return [str(v)]

def rd(opts):
    ds = gdal.OpenEx(path, gdal.OF_VECTOR, open_options=opts)
    return ds

LEAF = {'ThoroughfareName': 'streets', 'ThoroughfareNumber': 'numbers', 'PostalCodeNumber': 'postcodes', 'LocalityName': 'localities', 'CountryName': 'countries'}
KNOWN = {'gml_id','creationDate','informationSystem','name','function','roofType','measuredHeight','measuredHeight_uom','storeysAboveGround','description'}
out = {'buildings': [], 'parts': []}
ds = rd(['WRITE_GFS=NO'])
lyr = ds.GetLayerByName('Building')
for f in lyr:
    d = f.items()
    b = {'id': d['gml_id'], 'function': lst(d.get('function')), 'roofType': lst(d.get('roofType')),
         'measuredHeight': lst(d.get('measuredHeight')), 'storeys': lst(d.get('storeysAboveGround')),
         'creationDate': lst(d.get('creationDate')), 'generic': {}, 'own': {}, 'parts': {}}
    for k, v in d.items():
        leaf = k.split('|')[-1]
        if leaf in LEAF:
            side = 'parts' if k.startswith('consistsOfBuildingPart|') else 'own'
            b[side].setdefault(LEAF[leaf], []).extend(lst(v))
        elif '|' not in k and k not in KNOWN and v is not None:
            b['generic'][k] = sorted(lst(v))
    for side in ('own', 'parts'):
        for k in b[side]: b[side][k].sort()
    out['buildings'].append(b)
ds = rd(['WRITE_GFS=NO', 'GFS_TEMPLATE=' + tpl])
for f in ds.GetLayerByName('BuildingPart'):
    d = f.items()
    out['parts'].append({'id': d['gml_id'], 'function': lst(d.get('function')), 'roofType': lst(d.get('roofType')),
        'measuredHeight': lst(d.get('measuredHeight')), 'storeys': lst(d.get('storeysAboveGround')),
        'creationDate': lst(d.get('creationDate'))})
json.dump(out, sys.stdout, ensure_ascii=False, indent=0, sort_keys=True)
