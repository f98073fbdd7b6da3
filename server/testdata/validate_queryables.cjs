// Validates an OGC API - Features queryables document with Ajv (an
// independent JSON Schema 2020-12 implementation): the document against the
// 2020-12 metaschema, then every object of a JSON array against it.
// Usage: node validate_queryables.cjs queryables.json instances.json
const Ajv2020 = require("ajv/dist/2020");
const fs = require("fs");
const schema = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const instances = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
// strict: unknown keywords are errors, except OGC's x-ogc-role and
// Part 3's geometry formats, declared here. strictTypes is off: Part 3
// writes a geometry queryable as a format without a type.
const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
ajv.addKeyword("x-ogc-role");
for (const f of ["geometry-multipolygon"]) ajv.addFormat(f, true);
if (!ajv.validateSchema(schema)) {
  console.error("not a JSON Schema 2020-12:", JSON.stringify(ajv.errors));
  process.exit(1);
}
const validate = ajv.compile(schema);
let bad = 0;
instances.forEach((x, i) => {
  if (!validate(x)) {
    bad++;
    if (bad < 5) console.error(`instance ${i}:`, JSON.stringify(ajv.errors), JSON.stringify(x));
  }
});
if (bad > 0) {
  console.error(`${bad} of ${instances.length} instances do not validate`);
  process.exit(1);
}
console.log(`valid: ${instances.length} instances`);
