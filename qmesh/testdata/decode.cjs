// Decodes quantized-mesh tiles with @here/quantized-mesh-decoder (an
// independent reader of the format) and prints, per file, the header and
// the decoded vertices (u, v, height in metres) and edge indices as JSON.
const fs = require('fs');
const mod = require('@here/quantized-mesh-decoder');
const decode = mod.default || mod;
const out = {};
for (const file of process.argv.slice(2)) {
  const b = fs.readFileSync(file);
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
  const t = decode(ab);
  const n = t.vertexData.length / 3;
  const h = t.header;
  const heights = [];
  for (let i = 0; i < n; i++) heights.push(h.minHeight + (t.vertexData[2 * n + i] / 32767) * (h.maxHeight - h.minHeight));
  out[file] = {
    header: h,
    u: Array.from(t.vertexData.slice(0, n)), v: Array.from(t.vertexData.slice(n, 2 * n)), h: heights,
    triangles: t.triangleIndices.length / 3,
    west: Array.from(t.westIndices), south: Array.from(t.southIndices),
    east: Array.from(t.eastIndices), north: Array.from(t.northIndices),
    normals: t.extensions && t.extensions.vertexNormals ? t.extensions.vertexNormals.length : 0,
  };
}
process.stdout.write(JSON.stringify(out));
