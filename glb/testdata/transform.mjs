// transform.mjs loads a GLB with glTF-Transform (@gltf-transform/core and
// its Draco extension, decoding with draco3dgltf) and prints a summary as
// JSON: {"meshes":n,"primitives":n,"vertices":n,"triangles":n,"draco":bool}.
// Usage: node transform.mjs file.glb
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import draco3d from 'draco3dgltf';

const io = new NodeIO()
  .registerExtensions(ALL_EXTENSIONS)
  .registerDependencies({ 'draco3d.decoder': await draco3d.createDecoderModule() });
const doc = await io.read(process.argv[2]);
const root = doc.getRoot();
let primitives = 0, vertices = 0, triangles = 0;
for (const mesh of root.listMeshes()) {
  for (const prim of mesh.listPrimitives()) {
    primitives++;
    vertices += prim.getAttribute('POSITION').getCount();
    const idx = prim.getIndices();
    triangles += (idx ? idx.getCount() : prim.getAttribute('POSITION').getCount()) / 3;
  }
}
const draco = root.listExtensionsUsed().some((e) => e.extensionName === 'KHR_draco_mesh_compression');
console.log(JSON.stringify({ meshes: root.listMeshes().length, primitives, vertices, triangles, draco }));
