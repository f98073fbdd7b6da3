// Validates an OpenAPI document with @apidevtools/swagger-parser (an
// independent implementation of the OpenAPI 3.1 schema and $ref rules).
// Usage: node validate_openapi.cjs openapi.json
const SwaggerParser = require("@apidevtools/swagger-parser");
SwaggerParser.validate(process.argv[2])
  .then((api) => {
    console.log(`valid: ${api.info.title} ${api.info.version}, ${Object.keys(api.paths).length} paths`);
  })
  .catch((err) => {
    console.error(String(err && err.message ? err.message : err));
    process.exit(1);
  });
