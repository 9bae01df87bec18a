#!/usr/bin/env node
// Validate .glb / .gltf files with the Khronos glTF validator (npm package
// "gltf-validator", installed by scripts/gltf_validator_setup.sh).
// Usage: node tools/gltf_validate.mjs FILE...
// Prints one line per file: "FILE: errors E, warnings W, infos I" and the
// error messages; exit status 0 when no file has errors, 1 otherwise, 77 when
// the package is not installed (the tests skip then).
import { createRequire } from 'module';
import { readFile } from 'fs/promises';
import path from 'path';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dirs = [process.env.HKS_GLTF_VALIDATOR_DIR, path.join(here, '..', 'build', 'gltf-validator')].filter(Boolean);
let validator = null;
for (const d of dirs) {
  try {
    validator = createRequire(path.join(d, 'package.json'))('gltf-validator');
    break;
  } catch (e) { /* try the next folder */ }
}
if (!validator) {
  console.error('gltf_validate: the npm package gltf-validator is not installed (scripts/gltf_validator_setup.sh)');
  process.exit(77);
}
if (process.argv.length < 3) {
  console.error('usage: node tools/gltf_validate.mjs FILE...');
  process.exit(2);
}
let failed = false;
for (const file of process.argv.slice(2)) {
  const bytes = new Uint8Array(await readFile(file));
  // External resources (a .gltf beside its .bin) are read from the file's folder.
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 100,
    externalResourceFunction: (uri) =>
      readFile(path.join(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  const i = report.issues;
  console.log(`${file}: errors ${i.numErrors}, warnings ${i.numWarnings}, infos ${i.numInfos}`);
  for (const m of i.messages) {
    if (m.severity === 0) console.log(`  error ${m.code}: ${m.message} (${m.pointer ?? ''})`);
  }
  if (i.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
