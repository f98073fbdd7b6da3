// Package solar computes the solar resource of a surface: the sun's position
// (NREL SPA), extraterrestrial and clear-sky irradiance (Ineichen-Perez),
// and the irradiance on a tilted plane (beam, Perez or Hay-Davies sky
// diffuse, ground reflection) summed over a year, with hooks for beam
// shading and the sky-view factor. It is pure computation: no I/O, no HTTP.
// docs/solar.md states the equations and their sources.
//
// Angles are degrees unless a name says otherwise; azimuths are measured
// from north, eastward (0 = N, 90 = E, 180 = S); irradiance is W/m² and
// irradiation Wh/m² or kWh/m² as named.
package solar
