// cql2wasm.mjs: runs cql2-wasm (the WASM build of cql2-rs, the reference
// implementation of OGC CQL2) over the cases on stdin and prints its verdicts.
// Input: a JSON array of {"text": "..."} or {"json": "..."}.
// Output: a JSON array of {"valid": bool, "json": "<its cql2-json>" | null, "error": "..."}.
// Usage: node cql2wasm.mjs <node_modules dir> < cases.json
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = join(process.argv[2], 'cql2-wasm');
const bg = await import(pathToFileURL(join(dir, 'cql2_wasm_bg.js')).href);
const { instance } = await WebAssembly.instantiate(readFileSync(join(dir, 'cql2_wasm_bg.wasm')),
  { './cql2_wasm_bg.js': bg });
bg.__wbg_set_wasm(instance.exports);
instance.exports.__wbindgen_start();

const cases = JSON.parse(readFileSync(0, 'utf8'));
const out = cases.map((c) => {
  let e;
  try {
    e = c.text !== undefined ? bg.parseText(c.text) : bg.parseJson(c.json);
  } catch (err) {
    return { valid: false, json: null, error: 'parse: ' + String(err) };
  }
  let json;
  try {
    json = e.to_json(); // a string of cql2-json
  } catch (err) {
    return { valid: false, json: null, error: 'to_json: ' + String(err) };
  }
  try {
    e.validate();
  } catch (err) {
    return { valid: false, json, error: 'validate: ' + String(err) };
  }
  return { valid: true, json, error: '' };
});
process.stdout.write(JSON.stringify(out));
