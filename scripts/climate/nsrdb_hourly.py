#!/usr/bin/env python3
"""nsrdb_hourly.py turns an NSRDB 15-minute CSV (NREL National Solar Radiation
Database, Meteosat-based Europe data) into the hourly test series of package
solar/climate/germany: per UTC hour the mean of its four quarter-hour values of
GHI, DNI and DHI in W/m2 (each NSRDB value stands for the 15 minutes from its
stamp, so the hour's mean belongs to HH:30).

Dev-time only. Usage:
  git -C /work/.mirror/FZJ-IEK3-VSA+HiSim/repo show \
    HEAD:hisim/inputs/weather/NSRDB_15min/Potsdam/742114_52.41_13.06_2019.csv > /tmp/nsrdb.csv
  python3 scripts/climate/nsrdb_hourly.py /tmp/nsrdb.csv > solar/climate/germany/testdata/nsrdb_potsdam_2019.csv
"""
import csv
import sys

def main(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    meta = dict(zip(rows[0], rows[1]))
    if meta["Time Zone"] != "0":
        sys.exit("want UTC stamps (Time Zone 0)")
    head = rows[2]
    ix = {k: head.index(k) for k in ("Year", "Month", "Day", "Hour", "Minute", "GHI", "DNI", "DHI")}
    hours = {}
    for r in rows[3:]:
        key = tuple(int(r[ix[k]]) for k in ("Year", "Month", "Day", "Hour"))
        hours.setdefault(key, []).append(tuple(float(r[ix[k]]) for k in ("GHI", "DNI", "DHI")))
    out = sys.stdout
    out.write("# NSRDB (NREL National Solar Radiation Database) location %s, %s N %s E, %s m: year 2019, 15-minute GHI, DNI, DHI\n"
              % (meta["Location ID"], meta["Latitude"], meta["Longitude"], meta["Elevation"]))
    out.write("# averaged to UTC hours by scripts/climate/nsrdb_hourly.py (the hour's mean belongs to HH:30), W/m2.\n")
    out.write("# Source: NREL NSRDB, https://nsrdb.nrel.gov, CC BY 3.0 US; file as redistributed in github.com/FZJ-IEK3-VSA/HiSim\n")
    out.write("# (hisim/inputs/weather/NSRDB_15min/Potsdam/742114_52.41_13.06_2019.csv). Modified: hourly means, three columns.\n")
    out.write("# One row per hour from 2019-01-01T00:30Z on (8760 rows), rounded to 0.1 W/m2.\n")
    out.write("ghi,dni,dhi\n")
    keys = sorted(hours)
    if len(keys) != 8760 or keys[0] != (2019, 1, 1, 0):
        sys.exit("want the 8760 hours of 2019")
    for key in keys:
        v = hours[key]
        if len(v) != 4:
            sys.exit("hour %s has %d values" % (key, len(v)))
        m = [sum(x[i] for x in v) / 4 for i in range(3)]
        out.write(",".join("%g" % round(x, 1) for x in m) + "\n")

main(sys.argv[1])
