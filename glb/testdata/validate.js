// validate.js runs the Khronos glTF validator (npm gltf-validator) on a GLB
// and prints {"errors":n,"warnings":n,"messages":[...]} on stdout.
// Usage: node validate.js file.glb
'use strict';
const fs = require('fs');
const path = require('path');

function load() {
  for (const c of ['gltf-validator', path.join(__dirname, '..', '..', 'node_modules', 'gltf-validator')]) {
    try { return require(c); } catch (e) { /* try next */ }
  }
  throw new Error('gltf-validator not found');
}

const validator = load();
const data = new Uint8Array(fs.readFileSync(process.argv[2]));
validator.validateBytes(data, { maxIssues: 50 }).then((r) => {
  const msgs = r.issues.messages.filter((m) => m.severity <= 1).map((m) => `${m.severity} ${m.code} ${m.pointer || ''} ${m.message}`);
  console.log(JSON.stringify({ errors: r.issues.numErrors, warnings: r.issues.numWarnings, messages: msgs }));
}).catch((e) => { console.error(e); process.exit(2); });
