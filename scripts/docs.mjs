#!/usr/bin/env node
// Builds the self-contained docs pages (packages/contract/dist/docs.html, and docs.production.html
// without the demo credentials) from the docs bundles that `pnpm gen` writes (the contract plus
// code samples), then makes it truly offline: Redoc's
// attribution logo, otherwise loaded from Redocly's CDN, becomes an inline image, and telemetry is
// off (`telemetry: off` in redocly.yaml and REDOCLY_TELEMETRY here: the page built then sends none).
// Checked by scripts/docs-offline-check.mjs in headless Chromium.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'packages/contract/dist');

/** Builds one page: `input` (a docs bundle `pnpm gen` wrote) into `output`. */
function build(input, output) {
  execFileSync(
    join(root, 'node_modules/.bin/redocly'),
    ['build-docs', input, '--inlineBundle', '--title', 'Transport Operations API', '--output', output, '--config', 'redocly.yaml'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );

  const logo = `data:image/svg+xml,${encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="16" viewBox="0 0 64 16"><text x="0" y="12" font-family="sans-serif" font-size="12" font-weight="600" fill="#555">Redoc</text></svg>',
  )}`;
  // Codes and names in tables stay on one line (the error table's codes would otherwise break).
  const style = '<style>td code, th code { white-space: nowrap; word-break: normal; }</style>';
  let html = readFileSync(output, 'utf8').replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g, logo);
  html = html.replace('</head>', `${style}\n</head>`);
  const external = [...new Set(html.match(/https:\/\/cdn\.redoc(ly)?\.(ly|com)\/[^"'`\s)]+/g) ?? [])];
  writeFileSync(output, html);
  console.log(`docs written to ${output.slice(root.length + 1)} (${(html.length / 1024 / 1024).toFixed(1)} MB)`);
  if (external.length) console.log(`CDN addresses left in the bundle, unused unless configured: ${external.join(', ')}`);
  return html;
}

// The page of development servers and the sandbox (demo accounts and their password in every
// SDK sample), and the one a production server serves (none of them).
build(join(dist, 'openapi.docs.json'), join(dist, 'docs.html'));
const production = build(join(dist, 'openapi.docs.production.json'), join(dist, 'docs.production.html'));
if (production.includes('demo1234')) throw new Error('docs.production.html shows the demo password');
