// svc viewer, the map in 3D: building extrusions from the vector tiles
// (/v1/buildings/tiles.json) once the map is tilted, MapLibre 3D terrain
// from the terrain-RGB tiles (/v1/terrain/rgb.json) and contour lines
// (/v1/terrain/contours.json), each from this server's own TileJSON.
// viewer.js calls svcMap3D once its map exists; nothing here asks another
// origin.
'use strict';
window.svcMap3D = function (o) {
  const { map, sv, api, $ } = o;
  const extrusionColour = '#c2703d'; // the footprints' colour: the same buildings, tilted
  const contourColour = '#8a5a2b';
  // pitched: the map is tilted. From the first degree the buildings are
  // extrusions; flat, the footprint tiles draw them (exact ground
  // surfaces, what the count and the roof facets are about).
  const pitched = () => map.getPitch() > 0.5;
  sv.extruded = false;
  sv.terrain = false;
  sv.contours = false;
  sv.contourLabels = [];

  function showBuildingsAs3D() {
    if (!map.getLayer('buildings-3d')) return;
    const on = pitched();
    if (on === sv.extruded) return;
    sv.extruded = on;
    map.setLayoutProperty('buildings-3d', 'visibility', on ? 'visible' : 'none');
    // Kept for queries but not drawn: the ground surfaces would show
    // through the extrusions' bases.
    map.setPaintProperty('buildings-fill', 'fill-opacity', on ? 0 : 0.75);
    map.setLayoutProperty('buildings-line', 'visibility', on ? 'none' : 'visible');
  }

  // addExtrusions adds the building vector tiles as one fill-extrusion
  // layer, hidden while the map is flat. Height: height_m (ridge above the
  // lowest ground) from a base of 0: MapLibre stands each extrusion on the
  // terrain when terrain is on, so adding ground_m would lift it twice.
  function addExtrusions() {
    map.addSource('buildings-vt', { type: 'vector', url: api('v1/buildings/tiles.json') });
    map.addLayer({ id: 'buildings-3d', type: 'fill-extrusion', source: 'buildings-vt', 'source-layer': 'buildings', minzoom: 13,
      layout: { visibility: 'none' },
      paint: { 'fill-extrusion-color': extrusionColour, 'fill-extrusion-height': ['coalesce', ['get', 'height_m'], 0],
        'fill-extrusion-opacity': 0.9, 'fill-extrusion-vertical-gradient': true } });
    showBuildingsAs3D();
    map.on('pitch', showBuildingsAs3D);
  }

  // ---- relief: 3D terrain and contours, each with its button ----
  async function tileJSON(path) {
    try {
      const r = await fetch(api(path));
      return r.ok ? await r.json() : null;
    } catch (e) { return null; }
  }
  async function addRelief() {
    const [dem, contours] = await Promise.all([tileJSON('v1/terrain/rgb.json'), tileJSON('v1/terrain/contours.json')]);
    if (dem) {
      map.addSource('dem', { type: 'raster-dem', url: api('v1/terrain/rgb.json') });
      sv.terrainSource = true;
      $('btn-terrain').hidden = !$('globe').hidden;
    }
    if (contours) {
      map.addSource('contours', { type: 'vector', url: api('v1/terrain/contours.json') });
      // Under the buildings and the profile, over the hillshade.
      map.addLayer({ id: 'contour-lines', type: 'line', source: 'contours', 'source-layer': 'contours', layout: { visibility: 'none' },
        paint: { 'line-color': contourColour, 'line-width': ['case', ['get', 'index'], 1.8, 0.9] } }, map.getLayer('extents-fill') ? 'extents-fill' : undefined);
      sv.contourSource = true;
      $('btn-contours').hidden = !$('globe').hidden;
    }
  }

  // setTerrain turns MapLibre's 3D terrain on or off. Turning it on while
  // the map is flat tilts it to 60°, where the relief shows: seen from
  // straight above, terrain looks as the hillshade already does.
  function setTerrain(on) {
    if (!sv.terrainSource) return;
    map.setTerrain(on ? { source: 'dem', exaggeration: 1 } : null);
    sv.terrain = on;
    $('btn-terrain').setAttribute('aria-pressed', String(on));
    if (on && !pitched()) map.easeTo({ pitch: 60, duration: 600 });
  }

  function setContours(on) {
    if (!sv.contourSource) return;
    map.setLayoutProperty('contour-lines', 'visibility', on ? 'visible' : 'none');
    sv.contours = on;
    $('btn-contours').setAttribute('aria-pressed', String(on));
    labelContours();
  }

  // Contour labels: the style has no glyphs (a glyph server would be a
  // request to another origin, and svc serves no fonts), so the elevation
  // of the index lines (every 5th) is written in HTML markers, which use
  // the page's own font and stand on the terrain when it is on. One label
  // per line piece in view, at its middle vertex, at least 120 px from any
  // other, at most 40.
  let labels = [];
  function labelContours() {
    for (const m of labels) m.remove();
    labels = [];
    sv.contourLabels = [];
    if (!sv.contours) return;
    const c = map.getCanvas(), w = c.clientWidth, h = c.clientHeight, placed = [];
    const lines = map.queryRenderedFeatures({ layers: ['contour-lines'], filter: ['==', ['get', 'index'], true] });
    for (const f of lines) {
      const parts = f.geometry.type === 'LineString' ? [f.geometry.coordinates] : f.geometry.type === 'MultiLineString' ? f.geometry.coordinates : [];
      for (const line of parts) {
        if (labels.length >= 40 || line.length < 2) continue;
        const at = line[Math.floor(line.length / 2)], p = map.project(at);
        if (p.x < 20 || p.y < 20 || p.x > w - 20 || p.y > h - 20 || placed.some((q) => Math.hypot(q.x - p.x, q.y - p.y) < 120)) continue;
        placed.push(p);
        const el = document.createElement('span');
        el.className = 'contour-label';
        el.textContent = f.properties.elevation_m + ' m';
        labels.push(new maplibregl.Marker({ element: el }).setLngLat(at).addTo(map));
        sv.contourLabels.push({ elevation: f.properties.elevation_m, lngLat: at });
      }
    }
  }
  map.on('idle', labelContours); // once the lines of the view are drawn; markers cost no new frame

  // A building clicked on the tilted map: the vector tile has gmlid and
  // state; the level comes from the footprint of the same building when
  // it is loaded, which saves the counted detail request.
  function showExtruded(p) {
    const fp = map.getSource('buildings') && map.querySourceFeatures('buildings', { filter: ['==', ['get', 'gmlid'], p.gmlid] });
    if (fp && fp.length) o.showBuilding(p.gmlid, { gmlid: p.gmlid, bundesland_code: p.bl, lod: fp[0].properties.lod });
    else o.showBuilding(p.gmlid);
  }

  $('btn-terrain').addEventListener('click', () => setTerrain(!sv.terrain));
  $('btn-contours').addEventListener('click', () => setContours(!sv.contours));
  return { pitched, addExtrusions, addRelief, showExtruded };
};
