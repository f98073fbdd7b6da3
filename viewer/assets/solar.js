// svc viewer, solar potential on the Map tab: the server's solar map tiles
// (/v1/solar/tiles.json: every roof facet coloured by its precomputed
// annual irradiation) as a raster layer over the building footprints,
// shown with the Solar button, and the legend the TileJSON carries
// (`solar_legend`: the ramp's stops in kWh/m² and the suitability classes).
// viewer.js calls svcSolar once its map exists and add() once the
// building layers are there; the button stays hidden when the server
// publishes no solar pack (no "solar" product in /v1/attribution, which
// viewer.js reads first; tiles.json would answer 404).
'use strict';
window.svcSolar = function (o) {
  const { map, sv, api, $ } = o;
  sv.solar = false;
  sv.solarSource = false;
  sv.solarLegend = null;
  const classNames = { very_good: 'very good', good: 'good', fair: 'fair', poor: 'poor' };
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  async function add() {
    if (!sv.products || !sv.products.has('solar')) return false;
    let tj;
    try {
      const r = await fetch(api('v1/solar/tiles.json'));
      if (!r.ok) return false;
      tj = await r.json();
    } catch (e) { sv.errors.push('solar: ' + e.message); return false; }
    map.addSource('solar', { type: 'raster', url: api('v1/solar/tiles.json'), tileSize: tj.tileSize || 256 });
    // Over the footprints, under a clicked building's roof facets and the
    // profile line.
    map.addLayer({ id: 'solar', type: 'raster', source: 'solar', minzoom: tj.minzoom, layout: { visibility: 'none' },
      paint: { 'raster-opacity': 1, 'raster-fade-duration': 0 } }, map.getLayer('roof-fill') ? 'roof-fill' : undefined);
    sv.solarSource = true;
    sv.solarLegend = tj.solar_legend || null;
    drawLegend(tj);
    $('btn-solar').hidden = !$('globe').hidden;
    return true;
  }

  // The legend: the ramp's stops from the top (most sun), each with its
  // class when the server names one, and the zoom the layer starts at.
  function drawLegend(tj) {
    const l = tj.solar_legend;
    if (!l || !Array.isArray(l.stops)) return;
    const rows = l.stops.slice().reverse().map((s) => '<span><i style="background:' + esc(s.color) + '"></i>' +
      esc(Math.round(s.value)) + ' ' + esc(l.unit || '') + (s.class ? ' · ' + esc(classNames[s.class] || s.class) : '') + '</span>');
    $('solar-legend').innerHTML = '<strong>Solar irradiation per year</strong>' + rows.join('') +
      '<small>from zoom ' + esc(tj.minzoom) + '</small>';
  }

  function setSolar(on) {
    if (!sv.solarSource) return;
    map.setLayoutProperty('solar', 'visibility', on ? 'visible' : 'none');
    sv.solar = on;
    $('btn-solar').setAttribute('aria-pressed', String(on));
    $('solar-legend').hidden = !on || $('map').hidden;
  }

  $('btn-solar').addEventListener('click', () => setSolar(!sv.solar));
  // The layer is the Map tab's: the button and legend leave with it.
  $('tab-globe').addEventListener('click', () => { $('btn-solar').hidden = true; $('solar-legend').hidden = true; });
  $('tab-map').addEventListener('click', () => { $('btn-solar').hidden = !sv.solarSource; $('solar-legend').hidden = !sv.solar; });
  return { add, setSolar };
};
