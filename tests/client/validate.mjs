// Holds frames to docs/protocol.schema.json as a client author's validator would: ajv, draft
// 2020-12, strict mode, the schema as it is checked in.
//
//   node validate.mjs <schema.json> <Event|Action> <frames.jsonl>...
//
// Each line of each file is one frame. Prints what is wrong with each frame off the schema
// (against the branch of its kind, so the errors are about its fields) and exits 1; otherwise
// prints how many frames were held and exits 0. A schema ajv refuses is an error too.

import Ajv2020 from "ajv/dist/2020.js";
import { readFileSync } from "node:fs";

const [schemaPath, definition, ...files] = process.argv.slice(2);
if (!schemaPath || !definition) {
  console.error("usage: node validate.mjs <schema.json> <Event|Action> <frames.jsonl>...");
  process.exit(2);
}
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addSchema(schema, "protocol");
try {
  ajv.getSchema("protocol");
} catch (e) {
  console.error(`ajv refuses the schema: ${e.message}`);
  process.exit(1);
}
const union = ajv.getSchema(`protocol#/$defs/${definition}`);
const branches = schema.$defs[definition].oneOf;

let held = 0;
let wrong = 0;
for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (line === "") {
      return;
    }
    held += 1;
    let frame;
    try {
      frame = JSON.parse(line);
    } catch (e) {
      wrong += 1;
      console.log(`${file}:${i + 1}: not JSON (${e.message})\n  ${line.slice(0, 400)}`);
      return;
    }
    if (union(frame)) {
      return;
    }
    wrong += 1;
    const branch = branches.findIndex((b) => b.properties?.kind?.const === frame.kind);
    let why = `no ${definition} has kind ${JSON.stringify(frame.kind)}`;
    if (branch >= 0) {
      const typed = ajv.getSchema(`protocol#/$defs/${definition}/oneOf/${branch}`);
      typed(frame);
      why = ajv.errorsText(typed.errors, { dataVar: frame.kind });
    }
    console.log(`${file}:${i + 1}: ${why}\n  ${line.slice(0, 400)}`);
  });
}
if (wrong > 0) {
  console.log(`${wrong} of ${held} frames are off the ${definition} schema`);
  process.exit(1);
}
console.log(`${held} frames match the ${definition} schema`);
