#!/usr/bin/env node
// `pnpm contract:diff`: the breaking-change gate. Compares the contract with its latest release
// (openapi/releases/<version>.json) through `redocly diff` with the diff-recommended rules, prints
// every change, and fails on a breaking change unless info.version moved to a new major (or the
// change is a reviewed exception in openapi/releases/accepted-changes.yaml), on additive changes
// without the next minor version, and when the SDK's major.minor differs from the contract's.
// Rules: openapi/releases/README.md.
//   --contract <openapi.yaml>   the split contract's root (default openapi/openapi.yaml)
//   --releases <dir>            released documents (default openapi/releases)
//   --accepted <file>           reviewed exceptions (default <releases>/accepted-changes.yaml)
//   --sdk <package.json>        the SDK's package.json (default packages/sdk/package.json)
//   --markdown <file>           also write the change list as Markdown
//   --json                      print the result as JSON (changes with their pointers)
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaults, markdown, runGate, summary } from './lib/gate.mjs';

const { values } = parseArgs({
  options: {
    contract: { type: 'string' },
    releases: { type: 'string' },
    accepted: { type: 'string' },
    sdk: { type: 'string' },
    markdown: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const releasesDir = values.releases ? resolve(values.releases) : defaults.releasesDir;
let result;
try {
  result = runGate({
    contract: values.contract ? resolve(values.contract) : defaults.contract,
    releasesDir,
    accepted: values.accepted ? resolve(values.accepted) : join(releasesDir, 'accepted-changes.yaml'),
    sdkPackage: values.sdk ? resolve(values.sdk) : defaults.sdkPackage,
  });
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
const { revision, ...report } = result;
console.log(values.json ? JSON.stringify(report, null, 2) : summary(result));
if (values.markdown) writeFileSync(values.markdown, markdown(result));
for (const problem of result.problems) console.error(`✖ ${problem}`);
if (!result.ok) process.exit(1);
if (!values.json) console.log(`✔ contract gate passed (changes against ${result.base ?? 'nothing'} require: ${result.required})`);
