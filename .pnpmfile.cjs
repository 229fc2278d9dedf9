// pnpm hooks. `beforePacking` (pnpm pack and pnpm publish): the SDK's tarball carries the version its
// build is (a `-next.N` prerelease while the contract or the SDK has unreleased changes; see
// scripts/lib/sdk-version.mjs); packages/sdk/package.json is left as it is. pnpm-lock.yaml records
// a checksum of this file (`pnpmfileChecksum`): after editing it, run `pnpm install`. The logic lives
// in the script it loads, which can change without touching the lockfile.
module.exports = {
  hooks: {
    beforePacking(pkg) {
      if (pkg.name !== '@transport-ops/sdk') return pkg;
      const { sdkVersion } = require('./scripts/lib/sdk-version.mjs');
      return { ...pkg, version: sdkVersion().version };
    },
  },
};
