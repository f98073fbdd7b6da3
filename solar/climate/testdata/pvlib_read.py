"""Reads climate files with pvlib's readers and prints what they hold as JSON.

    PYTHONPATH=../../../shared/tools/pvlib /usr/bin/python3 pvlib_read.py FILE...

For each FILE (.csv, .json: PVGIS TMY; .epw: EnergyPlus): the site, the
irradiance time offset PVGIS states (or null), and per row the Unix time of
pvlib's index (PVGIS: the UTC stamp; EPW: the start of the hour in local
standard time) with GHI, DNI, DHI.
"""
import json
import sys

from pvlib import iotools

out = []
for path in sys.argv[1:]:
    if path.endswith('.epw'):
        data, meta = iotools.read_epw(path)
        site = [meta['latitude'], meta['longitude'], meta['altitude']]
        offset = None
    else:
        data, meta = iotools.read_pvgis_tmy(path, map_variables=True)
        inp = meta['inputs']
        loc = inp.get('location', inp)
        site = [loc['latitude'], loc['longitude'], loc['elevation']]
        offset = inp.get('irradiance time offset', loc.get('irradiance_time_offset'))
    out.append({'file': path, 'site': site, 'offset': offset,
                'unix': [int(t.timestamp()) for t in data.index],
                'ghi': data['ghi'].astype(float).tolist(),
                'dni': data['dni'].astype(float).tolist(),
                'dhi': data['dhi'].astype(float).tolist()})
json.dump(out, sys.stdout)
