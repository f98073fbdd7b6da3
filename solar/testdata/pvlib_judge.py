"""pvlib judge for package solar: writes pvlib's answers on a grid as JSON.

    PYTHONPATH=../../../shared/tools/pvlib /usr/bin/python3 pvlib_judge.py OUT.json [--small]

The grid (times over a year x latitudes 47-55 N x longitudes 6-15 E, tilts
0-90, azimuths 0-360, several sky conditions) is drawn here with a fixed
seed; every input the Go side needs is written beside pvlib's outputs, so
the Go test computes the same cases with package solar and compares.
--small writes the subset committed as pvlib_golden.json (tests without
Python compare against it).
"""
import json
import sys

import numpy as np
import pandas as pd
from pvlib import atmosphere, clearsky, irradiance, solarposition

DELTA_T = 69.2      # solar.DefaultDeltaTS
TEMP_C = 12.0       # solar.DefaultTemperatureC
YEAR = 2025
LINKE = [3.0, 3.2, 3.6, 4.0, 4.2, 4.3, 4.5, 4.4, 4.0, 3.6, 3.2, 3.0]


def unix(times):
    return [int(t.value // 10**9) for t in times]


def sun(times, lat, lon, alt):
    p = atmosphere.alt2pres(alt)
    return solarposition.get_solarposition(times, lat, lon, altitude=alt, pressure=p,
                                           method='nrel_numpy', temperature=TEMP_C,
                                           delta_t=DELTA_T)


def spa_case(rng, small):
    # Every 5 h 7 min through the year: all hours of the day in all seasons.
    n = 60 if small else 1720
    times = pd.date_range(f'{YEAR}-01-01 00:13', periods=n, freq='307min', tz='UTC')
    out = []
    lats = [47, 49.5, 52, 55] if small else np.arange(47, 55.01, 1.0)
    lons = [6, 15] if small else np.arange(6, 15.01, 1.5)
    for lat in lats:
        for lon in lons:
            alt = float(rng.uniform(0, 1500))
            sp = sun(times, float(lat), float(lon), alt)
            out.append({'lat': float(lat), 'lon': float(lon), 'alt': alt,
                        'pressure_hpa': float(atmosphere.alt2pres(alt)) / 100,
                        'unix': unix(times),
                        'apparent_zenith': sp['apparent_zenith'].tolist(),
                        'zenith': sp['zenith'].tolist(),
                        'azimuth': sp['azimuth'].tolist(),
                        'eot': sp['equation_of_time'].tolist()})
    return out


def clearsky_case(rng, small):
    n = 60 if small else 600
    times = pd.DatetimeIndex(pd.to_datetime(rng.integers(
        pd.Timestamp(f'{YEAR}-01-01', tz='UTC').value // 10**9,
        pd.Timestamp(f'{YEAR + 1}-01-01', tz='UTC').value // 10**9, n), unit='s', utc=True))
    out = []
    for lat in ([47, 55] if small else [47, 49, 51, 53, 55]):
        lon = float(rng.uniform(6, 15))
        alt = float(rng.uniform(0, 1500))
        tl = rng.uniform(2, 7, n)
        sp = sun(times, lat, lon, alt)
        am = atmosphere.get_absolute_airmass(
            atmosphere.get_relative_airmass(sp['apparent_zenith']), atmosphere.alt2pres(alt))
        extra = irradiance.get_extra_radiation(times)
        cs = clearsky.ineichen(sp['apparent_zenith'], am, tl, altitude=alt, dni_extra=extra)
        out.append({'lat': lat, 'lon': lon, 'alt': alt, 'unix': unix(times), 'linke': tl.tolist(),
                    'apparent_zenith': sp['apparent_zenith'].tolist(),
                    'dni_extra': extra.tolist(),
                    'ghi': cs['ghi'].fillna(0).tolist(), 'dni': cs['dni'].fillna(0).tolist(),
                    'dhi': cs['dhi'].fillna(0).tolist()})
    return out


def poa_case(rng, small):
    """Instants of daylight with clear to overcast skies on random planes."""
    n = 150 if small else 2000
    t0 = pd.Timestamp(f'{YEAR}-01-01', tz='UTC').value // 10**9
    t1 = pd.Timestamp(f'{YEAR + 1}-01-01', tz='UTC').value // 10**9
    rows = []
    while len(rows) < n:
        sec = int(rng.integers(t0, t1))
        lat, lon, alt = rng.uniform(47, 55), rng.uniform(6, 15), rng.uniform(0, 1500)
        sp = sun(pd.DatetimeIndex([pd.Timestamp(sec, unit='s', tz='UTC')]), lat, lon, alt)
        z = float(sp['apparent_zenith'].iloc[0])
        if z >= 89:
            continue
        rows.append({'unix': sec, 'lat': lat, 'lon': lon, 'alt': alt, 'zenith': z,
                     'sun_azimuth': float(sp['azimuth'].iloc[0])})
    df = pd.DataFrame(rows)
    times = pd.DatetimeIndex(pd.to_datetime(df['unix'], unit='s', utc=True))
    z = df['zenith'].to_numpy()
    am = atmosphere.get_absolute_airmass(atmosphere.get_relative_airmass(z),
                                         atmosphere.alt2pres(df['alt'].to_numpy()))
    extra = irradiance.get_extra_radiation(times).to_numpy()
    cs = clearsky.ineichen(z, am, rng.uniform(2, 7, n), altitude=df['alt'].to_numpy(),
                           dni_extra=extra)
    # From clear (k = 1) to overcast (k = 0): all eight Perez clearness bins.
    k = rng.choice([1.0, 0.5, 0.0], n)
    k = np.where(k == 0.5, rng.uniform(0, 1, n), k)
    cosz = np.cos(np.radians(z))
    dni = cs['dni'] * k
    dhi = cs['dhi'] + (1 - k) * cs['dni'] * cosz * rng.uniform(0.3, 1, n)
    ghi = dni * cosz + dhi
    tilt, az = rng.uniform(0, 90, n), rng.uniform(0, 360, n)
    edge = rng.random(n) < 0.2
    tilt[edge] = rng.choice([0.0, 90.0], edge.sum())
    df['tilt'], df['azimuth'], df['albedo'] = tilt, az, rng.uniform(0.1, 0.3, n)
    df['ghi'], df['dni'], df['dhi'] = ghi, dni, dhi
    for model in ('perez', 'haydavies'):
        r = irradiance.get_total_irradiance(
            tilt, az, z, df['sun_azimuth'].to_numpy(), dni, ghi, dhi, dni_extra=extra,
            model=model, model_perez='allsitescomposite1990', albedo=df['albedo'].to_numpy())
        df[model] = list(np.column_stack([r['poa_global'], r['poa_direct'],
                                          r['poa_sky_diffuse'], r['poa_ground_diffuse']]).tolist())
    return df.drop(columns=['zenith', 'sun_azimuth']).to_dict(orient='records')


def annual_case(small):
    """Clear-sky year, hourly at HH:30 UTC, annual POA sums in Wh/m2."""
    times = pd.date_range(f'{YEAR}-01-01 00:30', f'{YEAR}-12-31 23:30', freq='1h', tz='UTC')
    tl = np.array([LINKE[m - 1] for m in times.month])
    out = []
    sites = [(47.5, 9.5, 450.0), (51.0, 10.0, 200.0), (54.5, 13.0, 10.0)]
    planes = [(0, 180), (30, 180), (45, 90), (60, 270), (90, 180), (35, 0)]
    if small:
        sites, planes = sites[1:2], planes[:3]
    for lat, lon, alt in sites:
        sp = sun(times, lat, lon, alt)
        am = atmosphere.get_absolute_airmass(
            atmosphere.get_relative_airmass(sp['apparent_zenith']), atmosphere.alt2pres(alt))
        extra = irradiance.get_extra_radiation(times)
        cs = clearsky.ineichen(sp['apparent_zenith'], am, tl, altitude=alt,
                               dni_extra=extra).fillna(0)
        for tilt, az in planes:
            row = {'lat': lat, 'lon': lon, 'alt': alt, 'tilt': tilt, 'azimuth': az,
                   'albedo': 0.2, 'ghi': float(cs['ghi'].sum())}
            for model in ('perez', 'haydavies'):
                r = irradiance.get_total_irradiance(
                    tilt, az, sp['apparent_zenith'], sp['azimuth'], cs['dni'], cs['ghi'],
                    cs['dhi'], dni_extra=extra, model=model, albedo=0.2).fillna(0)
                row[model] = float(r['poa_global'].sum())
                row[model + '_monthly'] = r['poa_global'].groupby(times.month).sum().tolist()
            out.append(row)
    return out


def main():
    small = '--small' in sys.argv
    rng = np.random.default_rng(27)
    doc = {'pvlib': __import__('pvlib').__version__, 'delta_t': DELTA_T, 'temperature': TEMP_C,
           'year': YEAR, 'linke_by_month': LINKE,
           'spa': spa_case(rng, small), 'clearsky': clearsky_case(rng, small),
           'poa': poa_case(rng, small), 'annual': annual_case(small)}
    with open(sys.argv[1], 'w') as f:
        json.dump(doc, f, separators=(',', ':'))


if __name__ == '__main__':
    main()
