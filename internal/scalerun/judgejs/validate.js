// validate.js VALIDATOR_DIR MODE FILE... : runs the official CesiumGS 3D
// Tiles validator (its compiled build/ in VALIDATOR_DIR) on each FILE in one
// node process and prints one JSON line per file: {file, errors, warnings,
// issues: the first few messages}. MODE "tileset" validates a tileset JSON
// with every content it references; "structure" a tileset JSON with its
// external tilesets but no other content; "content" one tile content file
// (glb, b3dm, subtree...). Written by internal/scalerun (make bench-scale).
"use strict";
const path = require("path");
const [dir, mode, ...files] = process.argv.slice(2);
const { Validators } = require(path.join(dir, "build", "validation", "Validators"));
const { ValidationOptions } = require(path.join(dir, "build", "validation", "ValidationOptions"));

async function main() {
  const options = new ValidationOptions();
  if (mode === "structure") {
    options.includeContentTypes = ["CONTENT_TYPE_TILESET"];
  }
  for (const f of files) {
    let r;
    try {
      r = mode === "content" ? await Validators.validateTileContentFile(f, options) : await Validators.validateTilesetFile(f, options);
    } catch (e) {
      console.log(JSON.stringify({ file: f, errors: 1, warnings: 0, issues: ["validator threw: " + (e && e.stack || e)] }));
      continue;
    }
    const issues = [];
    const collect = (list) => {
      for (const i of list || []) {
        if (issues.length >= 5) return;
        if (i.severity === "ERROR" || i.severity === "WARNING") issues.push(i.severity + " " + i.type + " " + i.path + ": " + i.message);
        collect(i.causes);
      }
    };
    collect(r.issues);
    console.log(JSON.stringify({ file: f, errors: r.numErrors, warnings: r.numWarnings, issues }));
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
