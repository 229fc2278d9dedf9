#!/usr/bin/env node
// `pnpm sdk:version`: the version a pack of the SDK carries now, and why (scripts/lib/sdk-version.mjs).
// `pnpm pack` and `pnpm publish` of packages/sdk write it into the tarball's package.json
// (.pnpmfile.cjs); packages/sdk/package.json itself keeps the plain version of the next release.
//   --json   print the result as JSON
import { sdkVersion } from './lib/sdk-version.mjs';

const result = sdkVersion();
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  console.log(result.version);
  for (const reason of result.reasons) console.error(`  prerelease: ${reason}`);
}
