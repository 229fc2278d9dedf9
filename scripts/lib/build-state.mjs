// Whether a build step must run again, by the content of its inputs rather than their times: a
// `pnpm gen` that rewrites (or only touches) files without changing them, a checkout, or a copy
// must not force the minute-long server build. The digest of each step's inputs is recorded when
// the step succeeds (node_modules/.cache/transport-ops/build-state.json by default).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Digest of the names and contents of every file under `paths` (files or folders), relative to `root`. */
export function digest(paths, root) {
  const files = [];
  const visit = (p) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
    else files.push(p);
  };
  paths.forEach(visit);
  const hash = createHash('sha256');
  for (const file of files.map((f) => relative(root, f)).sort())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

export function readState(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

export function writeState(file, state) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** True when a step must run: an output is missing, or its inputs' digest is not the one recorded. */
export function isStale(step, state, root) {
  if (step.outputs.some((o) => !existsSync(o))) return true;
  return state[step.name] !== digest(step.inputs, root);
}
