// svc viewer: MapLibre GL JS for the map, CesiumJS (loaded on first use) for
// the globe. Every request goes to this server's own API, relative to the page,
// so the viewer works offline and behind a reverse proxy with a path prefix.
'use strict';
(function () {
  const api = (p) => new URL('../' + p, location.href).href;
  const germany = [5.5, 47.2, 15.5, 55.1];
  const $ = (id) => document.getElementById(id);
  // State the browser tests read; nothing else depends on it.
  const sv = window.svcViewer = { ready: false, errors: [], building: null, point: null, profile: null,
    tilesets: { requested: 0, loaded: 0, failed: 0 }, globeReady: false, picked: null, buildingView: null };

  const status = (t) => { $('status').textContent = t; };
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const fmt = (v, d = 2) => (v === null || v === undefined) ? '–' : Number(v).toFixed(d);

  // What the page draws while a person pans (hillshade, footprint tiles,
  // 3D Tiles, terrain) comes from routes the keyless limit does not count;
  // what a click asks (roof, elevation, canopy, profile) and the dataset
  // list are counted. Past the limit the notice says so and offers a key,
  // which the page then sends on counted requests only (an expired key
  // must not stop the tiles).
  const keyStore = 'svc-viewer-key';
  let apiKey = '';
  try { apiKey = localStorage.getItem(keyStore) || ''; } catch (e) { /* storage off */ }

  async function getJSON(path, opts = {}) {
    const headers = Object.assign({}, opts.headers);
    if (apiKey) headers['X-API-Key'] = apiKey;
    const r = await fetch(api(path), Object.assign({}, opts, { headers }));
    const body = await r.json().catch(() => ({}));
    if (!r.ok) {
      const e = new Error(body.detail || r.statusText || 'HTTP ' + r.status);
      e.status = r.status;
      e.problem = body;
      if (r.status === 429 || r.status === 401) showLimit(e);
      throw e;
    }
    return body;
  }

  // errText is an error for the panel: past the limit the notice above
  // the map has the whole story.
  const errText = (e) => e.status === 429 && sv.limit ? 'Not shown: the daily limit is reached (see the notice above the map).' : e.message;

  // ---- the limit notice: what happened, and how to go on ----
  function showLimit(e) {
    const p = e.problem || {};
    const keyless = /\/keyless-daily-limit$/.test(p.type || '');
    if (!keyless && e.status !== 401) return;
    if (e.status === 401 && apiKey) setKey('');
    sv.limit = { status: e.status, type: p.type || '', detail: p.detail || e.message };
    const docs = p.docs_url || api('docs');
    const n = $('notice');
    n.innerHTML = '<p><strong>' + (keyless ? 'The daily limit of requests without a key is reached.' : 'The API key was refused.') +
      '</strong> ' + esc(sv.limit.detail) + '</p><p>The map keeps drawing hillshade and building footprints (they are not counted); ' +
      'building details, elevation, canopy and profiles need an API key' + (keyless ? ' until the limit resets at 00:00 UTC' : '') + '.</p>' +
      '<div class="actions"><button id="btn-trial" type="button">Get a free trial key</button>' +
      '<label>or use a key <input id="key-input" autocomplete="off" spellcheck="false" placeholder="svc_…" aria-label="API key"></label>' +
      '<button id="btn-key" type="button">Use key</button>' +
      '<a id="key-docs" href="' + esc(p.key_url || docs + '#trial-keys') + '" target="_blank" rel="noopener">How to get a key</a></div>' +
      '<p id="notice-msg" role="status"></p>';
    n.hidden = false;
    $('btn-trial').addEventListener('click', mintTrial);
    $('btn-key').addEventListener('click', () => {
      const k = $('key-input').value.trim();
      if (k) { setKey(k); hideLimit('Using the API key ' + k.slice(0, 12) + '… for details.'); }
    });
    status(keyless ? 'Daily limit reached: see the notice above the map.' : 'API key refused: see the notice above the map.');
  }
  function hideLimit(msg) {
    $('notice').hidden = true;
    $('notice').textContent = '';
    sv.limit = null;
    status(msg);
  }
  function setKey(k) {
    apiKey = k;
    try { if (k) localStorage.setItem(keyStore, k); else localStorage.removeItem(keyStore); } catch (e) { /* storage off */ }
    showKey();
  }
  function showKey() {
    $('key-state').hidden = !apiKey;
    $('key-state').textContent = apiKey ? 'Key ' + apiKey.slice(0, 12) + '…' : '';
  }
  showKey();
  async function mintTrial() {
    const msg = $('notice-msg');
    msg.textContent = 'Asking for a trial key…';
    try {
      const r = await fetch(api('v1/keys/trial'), { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ source: 'viewer' }) });
      const b = await r.json().catch(() => ({}));
      if (!r.ok || !b.key) { msg.textContent = b.detail || 'No trial key: HTTP ' + r.status + '.'; return; }
      setKey(b.key);
      sv.trialKey = b.key.slice(0, 12);
      hideLimit('Using the trial key ' + b.key.slice(0, 12) + '… (valid until ' + String(b.expires_at || '').slice(0, 10) +
        '; kept in this browser).');
    } catch (e) { msg.textContent = 'No trial key: ' + e.message; }
  }

  // ---- attribution: every product shown is credited on screen ----
  let attribution = [];
  async function loadAttribution() {
    try {
      const a = await getJSON('v1/attribution');
      attribution = [...new Set((a.attribution || []).map((e) => e.attribution).filter(Boolean))];
      // What is published: solar.js asks for the solar layer only when a
      // solar pack is (its tiles.json would answer 404, an error in the
      // browser's console).
      sv.products = new Set((a.attribution || []).map((e) => e.product));
    } catch (e) { attribution = []; sv.products = new Set(); }
    $('attribution').textContent = attribution.length ? 'Data: ' + attribution.join(' · ') : '';
  }

  // ---- the map ----
  // The view: the URL hash (#zoom/lat/lon, kept up to date as the map
  // moves, as MapLibre's hash option does), else the last view in this
  // browser, else (once the datasets are known) everything published.
  const viewStore = 'svc-viewer-view';
  const hadHash = /^#[0-9.]+\/-?[0-9.]+\/-?[0-9.]+/.test(location.hash);
  let remembered = null;
  try {
    const v = JSON.parse(localStorage.getItem(viewStore) || 'null');
    if (v && isFinite(v.zoom) && Array.isArray(v.center) && v.center.every(isFinite)) remembered = v;
  } catch (e) { remembered = null; }
  sv.startedFrom = hadHash ? 'hash' : remembered ? 'remembered' : 'extent';
  const map = new maplibregl.Map(Object.assign({
    container: 'map',
    style: { version: 8, sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#eae6da' } }] },
    attributionControl: false,
    // Tilting shows the buildings as extrusions (and the relief with
    // Terrain on); past 60° the view reaches far beyond the footprint
    // tiles a view asks for.
    maxPitch: 60,
    hash: true,
  }, remembered && !hadHash ? { center: remembered.center, zoom: remembered.zoom } : { bounds: [[germany[0], germany[1]], [germany[2], germany[3]]] }));
  sv.map = map;
  map.addControl(new maplibregl.NavigationControl({ visualizePitch: true }), 'top-right'); // the compass resets bearing and pitch
  map.addControl(new maplibregl.ScaleControl(), 'bottom-left');
  map.on('error', (e) => { sv.errors.push(String(e.error && e.error.message || e)); });
  const m3d = window.svcMap3D({ map, sv, api, $, showBuilding: (...a) => showBuilding(...a) }); // map3d.js
  const solar = window.svcSolar({ map, sv, api, $ }); // solar.js

  async function addHillshade() {
    try {
      const r = await fetch(api('v1/terrain/hillshade.json'));
      if (!r.ok) return false;
      map.addSource('hillshade', { type: 'raster', url: api('v1/terrain/hillshade.json'), tileSize: 256 });
      map.addLayer({ id: 'hillshade', type: 'raster', source: 'hillshade', paint: { 'raster-opacity': 0.9 } });
      return true;
    } catch (e) { return false; }
  }

  const extentOf = (geom) => {
    const c = geom.coordinates[0], xs = c.map((p) => p[0]), ys = c.map((p) => p[1]);
    return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  };
  let published = null; // [w, s, e, n] of every building dataset
  async function addExtents() {
    const t = await getJSON('v1/tilesets?bbox=' + germany.join(','));
    const features = (t.tilesets || []).map((ts) => ({ type: 'Feature', geometry: ts.bounding_volume,
      properties: { bl: ts.bundesland_code, snapshot: ts.snapshot_date, buildings: ts.building_count, extent: extentOf(ts.bounding_volume) } }));
    // A dataset of a few km² is less than a pixel at the zoom that shows
    // all of Germany: a mark at its centre shows where it is.
    const marks = features.map((f) => {
      const [w, s, e, n] = f.properties.extent;
      return { type: 'Feature', geometry: { type: 'Point', coordinates: [(w + e) / 2, (s + n) / 2] }, properties: f.properties };
    });
    map.addSource('extents', { type: 'geojson', data: { type: 'FeatureCollection', features } });
    map.addSource('extent-marks', { type: 'geojson', data: { type: 'FeatureCollection', features: marks } });
    map.addLayer({ id: 'extents-fill', type: 'fill', source: 'extents', maxzoom: 14, paint: { 'fill-color': '#3b7dd8', 'fill-opacity': 0.25 } });
    map.addLayer({ id: 'extents-line', type: 'line', source: 'extents', paint: { 'line-color': '#2457a0', 'line-width': 2 } });
    map.addLayer({ id: 'extents-mark', type: 'circle', source: 'extent-marks', maxzoom: 11,
      paint: { 'circle-color': '#3b7dd8', 'circle-radius': 7, 'circle-stroke-color': '#fff', 'circle-stroke-width': 2 } });
    sv.tilesetList = t.tilesets || [];
    if (features.length) {
      const ex = features.map((f) => f.properties.extent);
      published = [Math.min(...ex.map((e) => e[0])), Math.min(...ex.map((e) => e[1])), Math.max(...ex.map((e) => e[2])), Math.max(...ex.map((e) => e[3]))];
      sv.published = published;
    }
    return features;
  }
  // showAll fits everything published, clear of the controls drawn over
  // the map's corners (the attribution can take several lines).
  function showAll(animate) {
    if (!published) return;
    const h = (sel) => Math.max(0, ...[...document.querySelectorAll(sel)].map((e) => e.offsetHeight));
    const c = map.getCanvas(), side = Math.min(40, c.clientWidth / 5), most = c.clientHeight / 4; // a phone keeps room to show
    const padding = { top: Math.min(most, 40 + h('.maplibregl-ctrl-top-right')), left: side, right: side,
      bottom: Math.min(most, 40 + h('.maplibregl-ctrl-bottom-left, .maplibregl-ctrl-bottom-right')) };
    map.fitBounds([[published[0], published[1]], [published[2], published[3]]], { padding, maxZoom: 16, animate: !!animate });
  }

  const empty = { type: 'FeatureCollection', features: [] };
  function addBuildingLayers() {
    map.addSource('buildings', { type: 'geojson', data: empty });
    map.addLayer({ id: 'buildings-fill', type: 'fill', source: 'buildings', minzoom: 14, paint: { 'fill-color': '#c2703d', 'fill-opacity': 0.75 } });
    map.addLayer({ id: 'buildings-line', type: 'line', source: 'buildings', minzoom: 14, paint: { 'line-color': '#6b3a1c', 'line-width': 0.8 } });
    m3d.addExtrusions();
    map.addSource('roof', { type: 'geojson', data: empty });
    map.addLayer({ id: 'roof-fill', type: 'fill', source: 'roof', paint: { 'fill-color': ['get', 'colour'], 'fill-opacity': 0.9 } });
    map.addLayer({ id: 'roof-line', type: 'line', source: 'roof', paint: { 'line-color': '#222', 'line-width': 1 } });
    map.addSource('profile', { type: 'geojson', data: empty });
    map.addLayer({ id: 'profile-line', type: 'line', source: 'profile', paint: { 'line-color': '#d62828', 'line-width': 3 } });
    map.addLayer({ id: 'profile-points', type: 'circle', source: 'profile', paint: { 'circle-color': '#d62828', 'circle-radius': 5 } });
  }

  // Buildings of the view: the footprint tiles (ground surfaces on the
  // zoom-15 Web Mercator grid, not counted against the keyless limit),
  // kept in memory so that panning back costs nothing. A footprint on a
  // tile border comes in each tile it meets and is drawn once.
  const fpZoom = 15, maxTiles = 150; // a view at zoom 15 needs 20 to 30 tiles
  const tiles = new Map(); // "x/y" -> Promise of {features, truncated}, least recently used first
  sv.footprintRequests = 0;
  function footprintTile(key) {
    let t = tiles.get(key);
    if (t) { tiles.delete(key); tiles.set(key, t); return t; }
    sv.footprintRequests++;
    t = fetch(api('v1/buildings/footprints/' + fpZoom + '/' + key + '.geojson')).then(async (r) => {
      const body = await r.json().catch(() => ({}));
      if (!r.ok) { const e = new Error(body.detail || 'HTTP ' + r.status); e.status = r.status; throw e; }
      return { features: body.features || [], truncated: !!(body.svc && body.svc.warnings && body.svc.warnings.length) };
    });
    t.catch(() => tiles.delete(key)); // asked again next time
    tiles.set(key, t);
    while (tiles.size > maxTiles) tiles.delete(tiles.keys().next().value);
    return t;
  }
  const tileX = (lon) => Math.floor((lon + 180) / 360 * (1 << fpZoom));
  const tileY = (lat) => {
    const r = lat * Math.PI / 180;
    return Math.floor((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2 * (1 << fpZoom));
  };
  // meets tells whether a (Multi)Polygon meets the box [w, s, e, n]: a
  // vertex inside the box, an edge through it, or the box inside a ring
  // (the test /v1/buildings applies, there in the BL's UTM grid).
  function meets(geom, [w, s, e, n]) {
    const polys = geom.type === 'Polygon' ? [geom.coordinates] : geom.coordinates;
    const inBox = (p) => p[0] >= w && p[0] <= e && p[1] >= s && p[1] <= n;
    const crosses = (a, b) => { // Liang-Barsky: does segment a-b meet the box?
      let t0 = 0, t1 = 1;
      const dx = b[0] - a[0], dy = b[1] - a[1];
      for (const [p, q] of [[-dx, a[0] - w], [dx, e - a[0]], [-dy, a[1] - s], [dy, n - a[1]]]) {
        if (p === 0) { if (q < 0) return false; continue; }
        const r = q / p;
        if (p < 0) t0 = Math.max(t0, r); else t1 = Math.min(t1, r);
        if (t0 > t1) return false;
      }
      return true;
    };
    let inside = false; // the box's corner inside the rings (even-odd)
    for (const poly of polys) {
      for (const ring of poly) {
        for (let i = 0; i < ring.length; i++) {
          const a = ring[i], b = ring[(i + 1) % ring.length];
          if (inBox(a) || crosses(a, b)) return true;
          if ((a[1] > s) !== (b[1] > s) && w < a[0] + (s - a[1]) * (b[0] - a[0]) / (b[1] - a[1])) inside = !inside;
        }
      }
    }
    return inside;
  }
  let loadGen = 0;
  async function loadBuildings() {
    if (!map.getSource('buildings')) return; // moved before the layers exist
    const gen = ++loadGen;
    if (map.getZoom() < fpZoom) {
      map.getSource('buildings').setData(empty);
      sv.buildingCount = null;
      status('Zoom in to see buildings (from zoom ' + fpZoom + ').');
      return;
    }
    const b = map.getBounds();
    const view = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];
    const keys = [];
    for (let x = tileX(view[0]); x <= tileX(view[2]); x++) {
      for (let y = tileY(view[3]); y <= tileY(view[1]); y++) keys.push(x + '/' + y);
    }
    let got;
    try {
      got = await Promise.all(keys.map(footprintTile));
    } catch (e) {
      if (gen !== loadGen) return;
      sv.errors.push('footprints: ' + e.message);
      status('Buildings could not be loaded: ' + e.message);
      return;
    }
    if (gen !== loadGen) return; // the map moved on meanwhile
    const seen = new Set(), features = [], buildings = new Set();
    let truncated = false;
    for (const t of got) {
      truncated = truncated || t.truncated;
      for (const f of t.features) {
        const p = f.properties, id = p.bundesland + ':' + p.surface_id;
        if (seen.has(id)) continue;
        seen.add(id);
        features.push(f);
        if (meets(f.geometry, view)) buildings.add(p.bundesland + ':' + p.building_id);
      }
    }
    map.getSource('buildings').setData({ type: 'FeatureCollection', features });
    // Buildings, not surfaces: a building of several parts has a ground
    // surface per part, all with its building_id.
    sv.buildingCount = buildings.size;
    map.once('idle', () => { if (gen === loadGen) sv.buildingView = view; }); // drawn
    status((truncated ? 'At least ' : '') + buildings.size + (buildings.size === 1 ? ' building' : ' buildings') + ' in view' +
      (truncated ? ' (a tile holds more footprints than the server sends)' : '') + '.');
  }

  // ---- the side panel ----
  function panel(html) { $('panel').innerHTML = html; }

  const azimuthColour = (az) => 'hsl(' + Math.round(az) + ',70%,55%)';
  // showBuilding shows a building's roof facets; known holds what the
  // footprint already says (gmlid, state, level), which saves the counted
  // detail request on the map.
  async function showBuilding(gmlid, known, attrs) {
    status('Building ' + gmlid + '…');
    let detail, roof;
    try {
      [detail, roof] = await Promise.all([known ? Promise.resolve(known) : getJSON('v1/buildings/' + encodeURIComponent(gmlid)),
        getJSON('v1/buildings/' + encodeURIComponent(gmlid) + '/roof')]);
    } catch (e) {
      panel('<p>' + esc(errText(e)) + '</p>');
      return;
    }
    const facets = roof.features || [];
    const area = facets.reduce((s, f) => s + f.properties.area_m2, 0);
    sv.building = { gmlid: detail.gmlid, roofArea: Math.round(area * 100) / 100, facets: facets.length };
    map.getSource('roof').setData({ type: 'FeatureCollection', features: facets.map((f) =>
      ({ type: 'Feature', geometry: f.geometry, properties: { colour: azimuthColour(f.properties.azimuth_deg) } })) });
    const rows = facets.map((f, i) => '<tr><td><span style="color:' + azimuthColour(f.properties.azimuth_deg) + '">■</span> ' + (i + 1) +
      '</td><td>' + fmt(f.properties.tilt_deg, 1) + '°</td><td>' + fmt(f.properties.azimuth_deg, 1) + '°</td><td>' + fmt(f.properties.area_m2) + '</td></tr>').join('');
    panel('<h2 id="building-gmlid">' + esc(detail.gmlid) + '</h2><dl>' +
      '<dt>State</dt><dd>' + esc(detail.bundesland_code) + '</dd><dt>Level</dt><dd>' + esc(detail.lod || '') + '</dd>' +
      '<dt>Roof area</dt><dd id="building-roof-area">' + fmt(area) + ' m²</dd><dt>Facets</dt><dd>' + facets.length + '</dd></dl>' +
      attrRows(attrs) +
      (facets.length ? '<table><caption>Roof facets</caption><thead><tr><th>#</th><th>Tilt</th><th>Azimuth</th><th>Area m²</th></tr></thead><tbody>' +
        rows + '</tbody></table>' : '<p>No roof facets.</p>'));
    status('Building ' + detail.gmlid + '.');
  }

  // attrRows lists the attributes a 3D tile feature carries (picked on the
  // globe): function and roof type with their AdV labels, heights, areas.
  const attrLabels = [['function', 'Function', ''], ['roof_type', 'Roof type', ''], ['height_m', 'Height', ' m'],
    ['storeys', 'Storeys', ''], ['ground_z_m', 'Ground', ' m DHHN2016'], ['eaves_z_m', 'Eaves', ' m DHHN2016'],
    ['ridge_z_m', 'Ridge', ' m DHHN2016'], ['footprint_area_m2', 'Footprint', ' m²'], ['roof_area_m2', 'Roof surface', ' m²'],
    ['municipality_key', 'Municipality key', ''], ['creation_date', 'Created', '']];
  function attrRows(attrs) {
    if (!attrs) return '';
    sv.pickedAttributes = attrs;
    const rows = attrLabels.filter(([k]) => attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== '').map(([k, label, unit]) => {
      let v = typeof attrs[k] === 'number' && !Number.isInteger(attrs[k]) ? fmt(attrs[k]) : String(attrs[k]);
      const l = attrs[k + '_label'];
      if (l) v += ' (' + l + ')';
      return '<dt>' + esc(label) + '</dt><dd id="building-attr-' + k + '">' + esc(v + unit) + '</dd>';
    });
    return rows.length ? '<dl class="attributes">' + rows.join('') + '</dl>' : '';
  }

  async function showPoint(lng, lat) {
    const q = 'lat=' + lat.toFixed(7) + '&lon=' + lng.toFixed(7);
    const [elev, canopy] = await Promise.all([
      getJSON('v1/terrain/elevation?' + q).catch((e) => ({ error: errText(e) })),
      getJSON('v1/vegetation/canopy?' + q).catch((e) => ({ error: errText(e) }))]);
    sv.point = { lat, lon: lng, elevation: elev.elevation_m === undefined ? null : elev.elevation_m,
      canopy: canopy.canopy_height_m === undefined ? null : canopy.canopy_height_m };
    panel('<h2>' + lat.toFixed(6) + ', ' + lng.toFixed(6) + '</h2><dl>' +
      '<dt>Elevation</dt><dd id="point-elevation">' + (elev.error ? esc(elev.error) : fmt(elev.elevation_m) + ' m (DHHN2016)') + '</dd>' +
      '<dt>Canopy</dt><dd id="point-canopy">' + (canopy.error ? esc(canopy.error) : fmt(canopy.canopy_height_m) + ' m') + '</dd></dl>');
  }

  // ---- profile: two clicks, then the chart ----
  let profilePts = null;
  function setProfileMode(on) {
    profilePts = on ? [] : null;
    $('btn-profile').setAttribute('aria-pressed', on ? 'true' : 'false');
    map.getCanvas().style.cursor = on ? 'crosshair' : '';
    if (on) status('Profile: click the start and the end point.');
  }
  async function profileClick(lng, lat) {
    profilePts.push([lng, lat]);
    const line = { type: 'Feature', geometry: { type: 'LineString', coordinates: profilePts }, properties: {} };
    const pts = profilePts.map((c) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: c }, properties: {} }));
    map.getSource('profile').setData({ type: 'FeatureCollection', features: profilePts.length > 1 ? [line, ...pts] : pts });
    if (profilePts.length < 2) return;
    const coords = profilePts.map((c) => c[0].toFixed(7) + ',' + c[1].toFixed(7)).join(';');
    setProfileMode(false);
    try {
      const p = await getJSON('v1/terrain/profile?samples=200&coords=' + coords);
      const samples = (p.features || []).map((f) => [f.properties.distance_m, f.properties.elevation_m]);
      sv.profile = { samples: samples.length };
      panel('<h2>Terrain profile</h2>' + chart(samples) + (p.properties && p.properties.partial ? '<p>Part of the line has no terrain data.</p>' : ''));
      status('Profile: ' + samples.length + ' samples.');
    } catch (e) {
      panel('<h2>Terrain profile</h2><p>' + esc(errText(e)) + '</p>');
    }
  }
  function chart(samples) {
    const ok = samples.filter((s) => s[1] !== null);
    if (!ok.length) return '<p>No elevation along the line.</p>';
    const w = 320, h = 160, pad = 30;
    const dMax = Math.max(...samples.map((s) => s[0])) || 1;
    let zMin = Math.min(...ok.map((s) => s[1])), zMax = Math.max(...ok.map((s) => s[1]));
    if (zMax - zMin < 1) { zMin -= 0.5; zMax += 0.5; }
    const x = (d) => pad + (w - pad - 5) * d / dMax, y = (z) => h - pad + (pad + 5 - h) * (z - zMin) / (zMax - zMin);
    let path = '', pen = 'M';
    for (const [d, z] of samples) {
      if (z === null) { pen = 'M'; continue; }
      path += pen + x(d).toFixed(1) + ' ' + y(z).toFixed(1) + ' ';
      pen = 'L';
    }
    return '<svg viewBox="0 0 ' + w + ' ' + h + '" role="img" aria-label="Elevation from ' + fmt(zMin, 1) + ' to ' + fmt(zMax, 1) +
      ' m over ' + fmt(dMax, 0) + ' m"><path d="' + path + '" fill="none" stroke="#d62828" stroke-width="2"/>' +
      '<text x="2" y="12" font-size="10">' + fmt(zMax, 1) + ' m</text><text x="2" y="' + (h - pad) + '" font-size="10">' + fmt(zMin, 1) +
      ' m</text><text x="' + (w - 60) + '" y="' + (h - 8) + '" font-size="10">' + fmt(dMax, 0) + ' m</text></svg>';
  }

  map.on('click', (e) => {
    if (profilePts) { profileClick(e.lngLat.lng, e.lngLat.lat); return; }
    if (m3d.pitched()) {
      const b = map.getLayer('buildings-3d') ? map.queryRenderedFeatures(e.point, { layers: ['buildings-3d'] }) : [];
      if (b.length) { m3d.showExtruded(b[0].properties); return; }
    }
    const mark = map.getLayer('extents-mark') ? map.queryRenderedFeatures(e.point, { layers: ['extents-mark', 'extents-fill'] }) : [];
    if (mark.length && map.getZoom() < fpZoom) {
      const [w, s, ea, n] = JSON.parse(mark[0].properties.extent);
      map.fitBounds([[w, s], [ea, n]], { padding: 40, maxZoom: 16.5 });
      return;
    }
    const hit = map.queryRenderedFeatures(e.point, { layers: ['buildings-fill'] });
    if (hit.length) {
      const p = hit[0].properties;
      showBuilding(p.gmlid, { gmlid: p.gmlid, bundesland_code: p.bundesland, lod: p.lod });
    } else showPoint(e.lngLat.lng, e.lngLat.lat);
  });
  map.on('mousemove', (e) => {
    if (profilePts) return;
    const layers = [m3d.pitched() ? 'buildings-3d' : 'buildings-fill', 'extents-mark'].filter((l) => map.getLayer(l));
    const hit = layers.length && map.queryRenderedFeatures(e.point, { layers });
    map.getCanvas().style.cursor = hit && hit.length ? 'pointer' : '';
  });
  map.on('moveend', () => {
    const c = map.getCenter();
    try { localStorage.setItem(viewStore, JSON.stringify({ center: [c.lng, c.lat], zoom: map.getZoom() })); } catch (e) { /* storage off */ }
    loadBuildings();
  });
  $('btn-home').addEventListener('click', () => showAll(true));

  map.on('load', async () => {
    await loadAttribution();
    const hill = await addHillshade();
    let extents = [];
    try { extents = await addExtents(); } catch (e) { status('Datasets: ' + e.message); }
    addBuildingLayers();
    await m3d.addRelief();
    await solar.add();
    map.addControl(new maplibregl.AttributionControl({ compact: false, customAttribution: attribution }), 'bottom-right');
    // Without a hash or a remembered view: everything published.
    if (extents.length && sv.startedFrom === 'extent') showAll(false);
    await loadBuildings();
    sv.hillshade = hill;
    sv.ready = true;
  });

  // ---- the globe (CesiumJS, loaded on first use) ----
  let globe = null;
  function loadScript(src) {
    return new Promise((ok, fail) => {
      const s = document.createElement('script');
      s.src = src; s.onload = ok; s.onerror = () => fail(new Error('cannot load ' + src));
      document.head.appendChild(s);
    });
  }
  async function openGlobe() {
    if (globe) return globe;
    status('Loading the 3D view…');
    window.CESIUM_BASE_URL = new URL('vendor/cesium/', location.href).href;
    const css = document.createElement('link');
    css.rel = 'stylesheet'; css.href = 'vendor/cesium/Widgets/widgets.css';
    document.head.appendChild(css);
    await loadScript('vendor/cesium/Cesium.js');
    const C = window.Cesium;
    C.Ion.defaultAccessToken = ''; // never ask Cesium ion for anything
    const imagery = C.ImageryLayer.fromProviderAsync(C.TileMapServiceImageryProvider.fromUrl(C.buildModuleUrl('Assets/Textures/NaturalEarthII')));
    const viewer = new C.Viewer('globe', {
      baseLayer: imagery, baseLayerPicker: false, geocoder: false, homeButton: false, sceneModePicker: false,
      navigationHelpButton: false, animation: false, timeline: false, fullscreenButton: false, infoBox: false,
      selectionIndicator: false, terrainProvider: new C.EllipsoidTerrainProvider(),
    });
    globe = sv.globe = viewer;
    viewer.scene.globe.baseColor = C.Color.fromCssColorString('#9a9a90');
    for (const a of attribution) viewer.creditDisplay.addStaticCredit(new C.Credit(esc(a), true));
    // The server's hillshade as imagery over the DGM's extent: the offline
    // Natural Earth texture is far too coarse at street level.
    try {
      const r = await fetch(api('v1/terrain/hillshade.json'));
      if (r.ok) {
        const tj = await r.json();
        const b = tj.bounds;
        viewer.imageryLayers.addImageryProvider(new C.UrlTemplateImageryProvider({
          url: api('v1/terrain/hillshade/{z}/{x}/{y}.png'), minimumLevel: tj.minzoom, maximumLevel: 18,
          rectangle: C.Rectangle.fromDegrees(b[0], b[1], b[2], b[3]) }));
        sv.globeHillshade = true;
      }
    } catch (e) { sv.errors.push('hillshade: ' + e.message); }
    // Terrain: quantized-mesh from this server when it serves it, else the
    // terrain-mesh tilesets on the plain ellipsoid.
    let qm = false;
    try {
      const r = await fetch(api('v1/terrain/quantized-mesh/layer.json'));
      if (r.ok) {
        viewer.terrainProvider = await C.CesiumTerrainProvider.fromUrl(api('v1/terrain/quantized-mesh/'), { requestVertexNormals: true });
        qm = true;
      }
    } catch (e) { sv.errors.push('terrain: ' + e.message); }
    sv.quantizedMesh = qm;
    const urls = [];
    for (const t of sv.tilesetList || []) urls.push({ url: t.tileset_url, kind: 'buildings', bl: t.bundesland_code });
    if (!qm) {
      const tm = await getJSON('v1/terrain-mesh/datasets').catch(() => ({ datasets: [] }));
      for (const d of tm.datasets || []) urls.push({ url: d.tileset_url, kind: 'terrain', bl: d.bundesland_code });
    }
    for (const list of ['v1/vegetation/datasets', 'v1/osm-cover/datasets']) {
      const v = await getJSON(list).catch(() => ({ datasets: [] }));
      for (const d of v.datasets || []) {
        for (const th of d.themes || []) {
          if (th.url && /tileset\.json$/.test(th.url)) urls.push({ url: th.url, kind: th.name, bl: d.bundesland_code });
        }
      }
    }
    const tilesets = [];
    sv.tilesets.requested = urls.length;
    await Promise.all(urls.map(async (u) => {
      try {
        const ts = await C.Cesium3DTileset.fromUrl(u.url, { showCreditsOnScreen: true });
        ts.svcKind = u.kind;
        viewer.scene.primitives.add(ts);
        tilesets.push(ts);
        sv.tilesets.loaded++;
        ts.tileFailed.addEventListener((e) => { sv.tilesets.failed++; sv.errors.push('tile ' + e.url + ': ' + e.message); });
      } catch (e) {
        sv.tilesets.failed++;
        sv.errors.push('tileset ' + u.url + ': ' + e.message);
      }
    }));
    sv.globeTilesets = tilesets;
    // Look at the buildings under the map's centre, else at the first ones.
    const c = map.getCenter();
    const target = tilesets.find((t) => t.svcKind === 'buildings' && C.Cartographic.fromCartesian(t.boundingSphere.center) &&
      Math.abs(C.Math.toDegrees(C.Cartographic.fromCartesian(t.boundingSphere.center).longitude) - c.lng) < 0.05) ||
      tilesets.find((t) => t.svcKind === 'buildings');
    if (target) {
      const bs = target.boundingSphere;
      viewer.camera.viewBoundingSphere(bs, new C.HeadingPitchRange(0, -0.6, bs.radius * 1.6));
      viewer.camera.lookAtTransform(C.Matrix4.IDENTITY);
    }
    const handler = new C.ScreenSpaceEventHandler(viewer.scene.canvas);
    handler.setInputAction((e) => {
      const f = viewer.scene.pick(e.position);
      if (!(f instanceof C.Cesium3DTileFeature)) return;
      const props = {};
      for (const id of f.getPropertyIds()) props[id] = f.getProperty(id);
      sv.picked = props;
      if (props.gmlid) showBuilding(props.gmlid, undefined, props);
      else panel('<h2>Feature</h2><dl>' + Object.entries(props).map(([k, v]) => '<dt>' + esc(k) + '</dt><dd>' + esc(v) + '</dd>').join('') + '</dl>');
    }, C.ScreenSpaceEventType.LEFT_CLICK);
    sv.globeReady = true;
    applyColourBy();
    status('3D: ' + tilesets.length + ' tilesets' + (qm ? ', quantized-mesh terrain' : '') + '.');
    return viewer;
  }

  // Keyboard for the globe (the map has its own): arrows move, +/- zoom.
  $('globe').addEventListener('keydown', (e) => {
    if (!globe) return;
    const cam = globe.camera, h = globe.scene.globe.ellipsoid.cartesianToCartographic(cam.position).height;
    const step = Math.max(h * 0.05, 5);
    const act = { ArrowUp: () => cam.moveForward(step), ArrowDown: () => cam.moveBackward(step), ArrowLeft: () => cam.moveLeft(step),
      ArrowRight: () => cam.moveRight(step), '+': () => cam.zoomIn(step * 2), '-': () => cam.zoomOut(step * 2) }[e.key];
    if (act) { act(); e.preventDefault(); }
  });

  // ---- colour the 3D buildings by an attribute (Cesium3DTileStyle) ----
  // Function: the AdV function code groups (31001_1xxx living, _2xxx
  // trade and industry, _3xxx public); height_m in classes; roof type by
  // AdV Dachform. Buildings without the attribute stay light grey.
  const none = "color('#d8d8d8')";
  const colourStyles = {
    function: { conditions: [
      ['${function} === undefined', none],
      ["regExp('^31001_1').test(${function})", "color('#f28e2b')"],
      ["regExp('^31001_2').test(${function})", "color('#4e79a7')"],
      ["regExp('^31001_3').test(${function})", "color('#b07aa1')"],
      ['true', "color('#76b7b2')"]],
      legend: [['#f28e2b', 'living (31001_1…)'], ['#4e79a7', 'trade, industry (31001_2…)'], ['#b07aa1', 'public (31001_3…)'], ['#76b7b2', 'other'], ['#d8d8d8', 'unknown']] },
    height: { conditions: [
      ['${height_m} === undefined', none],
      ['${height_m} >= 30', "color('#b2182b')"],
      ['${height_m} >= 20', "color('#ef8a62')"],
      ['${height_m} >= 12', "color('#fddbc7')"],
      ['${height_m} >= 6', "color('#67a9cf')"],
      ['true', "color('#2166ac')"]],
      legend: [['#b2182b', '≥ 30 m'], ['#ef8a62', '20–30 m'], ['#fddbc7', '12–20 m'], ['#67a9cf', '6–12 m'], ['#2166ac', '< 6 m'], ['#d8d8d8', 'unknown']] },
    roof_type: { conditions: [
      ['${roof_type} === undefined', none],
      ["${roof_type} === '1000'", "color('#4e79a7')"],
      ["${roof_type} === '2100'", "color('#59a14f')"],
      ["${roof_type} === '3100'", "color('#e15759')"],
      ["${roof_type} === '3200' || ${roof_type} === '3300'", "color('#f28e2b')"],
      ['true', "color('#b07aa1')"]],
      legend: [['#4e79a7', 'flat (1000)'], ['#59a14f', 'shed (2100)'], ['#e15759', 'gable (3100)'], ['#f28e2b', 'hip (3200, 3300)'], ['#b07aa1', 'other'], ['#d8d8d8', 'unknown']] },
  };
  // Solar potential: the roofs of building tilesets built with a solar
  // pack carry per vertex their facet's share_of_best (class roof_solar,
  // docs/3d-tiles.md), which a CustomShader turns into the suitability
  // class of the solar route (docs/solar.md section 10) on the GPU; walls
  // and roofs without a value keep the building colour. The ramp is four
  // steps of the colour-blind-safe "plasma" map, brighter for more sun.
  const solarClasses = [[0.9, '#f0f921', 'very good (≥ 90 % of the best plane)'], [0.8, '#ed7953', 'good (80–90 %)'],
    [0.7, '#9c179e', 'fair (70–80 %)'], [-0.5, '#0d0887', 'poor (< 70 %)']];
  const glslColour = (hex) => 'vec3(' + [1, 3, 5].map((i) => (parseInt(hex.slice(i, i + 2), 16) / 255).toFixed(4)).join(', ') + ')';
  let solarShader;
  function solarCustomShader(C) {
    if (solarShader) return solarShader;
    const steps = solarClasses.map(([min, c]) => '    if (s >= ' + min.toFixed(2) + ') { material.diffuse = czm_srgbToLinear(' + glslColour(c) + '); return; }').join('\n');
    solarShader = new C.CustomShader({ fragmentShaderText: [
      'void fragmentMain(FragmentInput fsInput, inout czm_modelMaterial material) {',
      '    float s = fsInput.metadata.share_of_best;',
      '    if (s < -0.5) return; // noData (-1): walls, ground, roofs without a value',
      steps, '}'].join('\n') });
    return solarShader;
  }
  const hasSolar = (t) => !!(t.asset && t.asset.extras && t.asset.extras.solar);
  function solarLegend() {
    const ts = (sv.globeTilesets || []).filter((t) => t.svcKind === 'buildings');
    const withSolar = ts.filter(hasSolar);
    if (!withSolar.length) return '<span>No building tileset of this server carries solar values (svc build solar, then svc build tileset).</span>';
    const info = withSolar[0].asset.extras.solar;
    const best = info.best_plane_annual_kwh_m2 ? ' (' + Math.round(info.best_plane_annual_kwh_m2) + ' kWh/m² a year)' : '';
    const climate = info.climate && info.climate.file ? '<span>climate: ' + esc(info.climate.file) + (info.climate.source ? ', ' + esc(info.climate.source) : '') + '</span>' : '';
    return '<span><b>Roof irradiation, share of the best plane' + esc(best) + '</b></span>' +
      solarClasses.map(([, c, l]) => '<span><i style="background:' + c + '"></i>' + esc(l) + '</span>').join('') +
      '<span><i style="background:#d9d4cc"></i>no value (walls, roofs not computed)</span>' + climate +
      (withSolar.length < ts.length ? '<span>' + (ts.length - withSolar.length) + ' tileset(s) without solar values shown plain</span>' : '');
  }
  function applyColourBy() {
    const by = $('colour-by').value;
    sv.colourBy = by;
    const legend = $('colour-legend');
    const s = colourStyles[by];
    legend.hidden = (!s && by !== 'solar') || !globe || $('globe').hidden;
    legend.innerHTML = s ? s.legend.map(([c, l]) => '<span><i style="background:' + c + '"></i>' + esc(l) + '</span>').join('') :
      by === 'solar' ? solarLegend() : '';
    if (!globe) return;
    const C = window.Cesium;
    for (const t of sv.globeTilesets || []) {
      if (t.svcKind !== 'buildings') continue;
      t.style = s ? new C.Cesium3DTileStyle({ color: { conditions: s.conditions } }) : undefined;
      t.customShader = by === 'solar' && hasSolar(t) ? solarCustomShader(C) : undefined;
    }
  }
  $('colour-by').addEventListener('change', applyColourBy);

  function selectTab(which) {
    const globeOn = which === 'globe';
    $('tab-map').setAttribute('aria-selected', String(!globeOn));
    $('tab-globe').setAttribute('aria-selected', String(globeOn));
    $('map').hidden = globeOn;
    $('globe').hidden = !globeOn;
    $('btn-profile').disabled = globeOn;
    $('btn-terrain').hidden = globeOn || !sv.terrainSource;
    $('btn-contours').hidden = globeOn || !sv.contourSource;
    $('colour-by-wrap').hidden = !globeOn;
    $('colour-legend').hidden = !globeOn || $('colour-by').value === 'none';
    if (globeOn) openGlobe().catch((e) => { sv.errors.push(String(e)); status('3D: ' + e.message); });
    else map.resize();
  }
  $('tab-map').addEventListener('click', () => selectTab('map'));
  $('tab-globe').addEventListener('click', () => selectTab('globe'));
  $('btn-profile').addEventListener('click', () => setProfileMode(!profilePts));

  // GLB of the view: the visible box, cut to 1 km² around its centre (the
  // public limit of /v1/buildings/3d.glb).
  $('btn-glb').addEventListener('click', () => {
    let w, s, e, n;
    if (globe && !$('globe').hidden) {
      const r = globe.camera.computeViewRectangle();
      if (!r) { status('GLB: look at the ground first.'); return; }
      [w, s, e, n] = [r.west, r.south, r.east, r.north].map(window.Cesium.Math.toDegrees);
    } else {
      const b = map.getBounds();
      [w, s, e, n] = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];
    }
    const cx = (w + e) / 2, cy = (s + n) / 2;
    const halfLat = 0.5 / 111.32, halfLon = 0.5 / (111.32 * Math.cos(cy * Math.PI / 180)); // 1 km x 1 km
    w = Math.max(w, cx - halfLon); e = Math.min(e, cx + halfLon); s = Math.max(s, cy - halfLat); n = Math.min(n, cy + halfLat);
    const a = document.createElement('a');
    a.href = api('v1/buildings/3d.glb?bbox=' + [w, s, e, n].map((v) => v.toFixed(6)).join(','));
    a.download = 'buildings.glb';
    sv.glbURL = a.href;
    document.body.appendChild(a); a.click(); a.remove();
  });
})();
