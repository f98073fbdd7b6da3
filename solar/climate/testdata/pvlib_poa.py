"""Annual plane-of-array sums of climate files the way a pvlib user computes them.

    PYTHONPATH=../../../shared/tools/pvlib /usr/bin/python3 pvlib_poa.py FILE...

Each file is read with pvlib (read_pvgis_tmy / read_epw); the sun is placed
where svc places it (PVGIS: the UTC stamp plus the stated irradiance time
offset; EPW: the centre of the hour), computed with get_solarposition
(nrel_numpy, delta_t 69.2 s, pressure of the site's height, 12 C); rows with
the sun at or below the horizon are left out (svc's documented rule); the
hourly get_total_irradiance (Perez 1990 and Hay-Davies, albedo 0.2) is summed
to Wh/m2 per plane.

PVLIB_POA_PLANES (optional, JSON [[tilt, azimuth], ...]) replaces the default
planes (the solar route's test passes a building's roof facets).
"""
import json
import os
import sys

import numpy as np
import pandas as pd
from pvlib import atmosphere, iotools, irradiance, solarposition

PLANES = [(35, 180), (45, 90), (20, 270), (90, 180), (60, 0)]
if os.environ.get('PVLIB_POA_PLANES'):
    PLANES = [tuple(p) for p in json.loads(os.environ['PVLIB_POA_PLANES'])]
out = []
for path in sys.argv[1:]:
    if path.endswith('.epw'):
        data, meta = iotools.read_epw(path)
        lat, lon, alt = meta['latitude'], meta['longitude'], meta['altitude']
        times = data.index + pd.Timedelta(minutes=30)
    else:
        data, meta = iotools.read_pvgis_tmy(path, map_variables=True)
        loc = meta['inputs'].get('location', meta['inputs'])
        lat, lon, alt = loc['latitude'], loc['longitude'], loc['elevation']
        off = meta['inputs'].get('irradiance time offset', loc.get('irradiance_time_offset')) or 0
        times = data.index + pd.Timedelta(hours=off)
    sp = solarposition.get_solarposition(times, lat, lon, altitude=alt,
                                         pressure=atmosphere.alt2pres(alt), temperature=12.0,
                                         delta_t=69.2, method='nrel_numpy')
    keep = (sp['apparent_zenith'].to_numpy() < 90)
    d = data[keep]
    z, az, t = sp['apparent_zenith'][keep], sp['azimuth'][keep], times[keep]
    extra = irradiance.get_extra_radiation(t).to_numpy()
    sums = {}
    np.seterr(divide='ignore', invalid='ignore')
    for model in ('perez', 'haydavies'):
        for tilt, azim in PLANES:
            r = irradiance.get_total_irradiance(tilt, azim, z.to_numpy(), az.to_numpy(), d['dni'].to_numpy(),
                                                d['ghi'].to_numpy(), d['dhi'].to_numpy(),
                                                dni_extra=extra, model=model, albedo=0.2)
            # Perez is undefined without diffuse light (DHI = 0: NaN in pvlib); that
            # hour's sky diffuse is 0, its beam and ground reflection count.
            poa = r['poa_direct'] + np.nan_to_num(r['poa_sky_diffuse']) + r['poa_ground_diffuse']
            sums[f'{model} {tilt} {azim}'] = float(np.nansum(poa))
    out.append({'file': path, 'ghi': float(d['ghi'].sum()), 'sums': sums})
json.dump(out, sys.stdout)
