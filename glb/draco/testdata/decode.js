// decode.js decodes a Draco file with the npm draco3d decoder (the one
// three.js and Cesium ship) and prints the mesh as JSON on stdout:
// {"faces":n,"points":n,"indices":[...],"attributes":[{"id","type","comps","dataType","values"}]}.
// Usage: node decode.js file.drc
'use strict';
const fs = require('fs');
const path = require('path');

function loadDraco() {
  const candidates = [
    'draco3d',
    path.join(__dirname, '..', '..', '..', 'node_modules', 'draco3d'),
  ];
  for (const c of candidates) {
    try { return require(c); } catch (e) { /* try next */ }
  }
  throw new Error('draco3d not found');
}

const draco3d = loadDraco();
const data = fs.readFileSync(process.argv[2]);

draco3d.createDecoderModule({}).then((m) => {
  const decoder = new m.Decoder();
  const buf = new m.DecoderBuffer();
  buf.Init(new Int8Array(data.buffer, data.byteOffset, data.length), data.length);
  if (decoder.GetEncodedGeometryType(buf) !== m.TRIANGULAR_MESH) {
    console.error('not a triangular mesh');
    process.exit(2);
  }
  const mesh = new m.Mesh();
  const status = decoder.DecodeBufferToMesh(buf, mesh);
  if (!status.ok() || mesh.ptr === 0) {
    console.error('decode failed: ' + status.error_msg());
    process.exit(1);
  }
  const nf = mesh.num_faces();
  const np = mesh.num_points();
  const indices = new Array(nf * 3);
  const ia = new m.DracoInt32Array();
  for (let f = 0; f < nf; f++) {
    decoder.GetFaceFromMesh(mesh, f, ia);
    for (let j = 0; j < 3; j++) indices[3 * f + j] = ia.GetValue(j);
  }
  m.destroy(ia);
  const attributes = [];
  for (let i = 0; i < mesh.num_attributes(); i++) {
    const att = decoder.GetAttribute(mesh, i);
    const comps = att.num_components();
    const dt = att.data_type();
    const n = np * comps;
    let arr;
    let getter;
    if (dt === m.DT_FLOAT32) { arr = new m.DracoFloat32Array(); getter = 'GetAttributeFloatForAllPoints'; }
    else if (dt === m.DT_UINT8) { arr = new m.DracoUInt8Array(); getter = 'GetAttributeUInt8ForAllPoints'; }
    else if (dt === m.DT_UINT16) { arr = new m.DracoUInt16Array(); getter = 'GetAttributeUInt16ForAllPoints'; }
    else { arr = new m.DracoUInt32Array(); getter = 'GetAttributeUInt32ForAllPoints'; }
    decoder[getter](mesh, att, arr);
    const values = new Array(n);
    for (let j = 0; j < n; j++) values[j] = arr.GetValue(j);
    m.destroy(arr);
    attributes.push({ id: att.unique_id(), type: att.attribute_type(), comps, dataType: dt, values });
  }
  process.stdout.write(JSON.stringify({ faces: nf, points: np, indices, attributes }));
  m.destroy(mesh);
  m.destroy(buf);
  m.destroy(decoder);
});
