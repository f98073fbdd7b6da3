// features.mjs loads a GLB with glTF-Transform (decoding Draco with
// draco3dgltf, as three.js and CesiumJS do) and prints, per feature id of
// the _FEATURE_ID_0 vertex attribute, the vertex count and the z range
// (third position component): {"<id>": [count, zmin, zmax], ...}.
// Usage: node features.mjs file.glb
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';

const io = new NodeIO()
  .registerExtensions(ALL_EXTENSIONS)
  .registerDependencies({ 'draco3d.decoder': await draco3d.createDecoderModule() });
const doc = await io.read(process.argv[2]);
const out = {};
for (const mesh of doc.getRoot().listMeshes()) {
  for (const prim of mesh.listPrimitives()) {
    const pos = prim.getAttribute('POSITION');
    const fid = prim.getAttribute('_FEATURE_ID_0');
    if (!fid) {
      console.error('primitive without _FEATURE_ID_0');
      process.exit(2);
    }
    const p = [], f = [];
    for (let i = 0; i < pos.getCount(); i++) {
      pos.getElement(i, p);
      fid.getElement(i, f);
      const e = out[f[0]] || (out[f[0]] = [0, Infinity, -Infinity]);
      e[0]++;
      e[1] = Math.min(e[1], p[2]);
      e[2] = Math.max(e[2], p[2]);
    }
  }
}
console.log(JSON.stringify(out));
