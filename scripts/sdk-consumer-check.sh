#!/usr/bin/env bash
# Packs the SDK, installs the tarball into an empty project with registry dependencies only,
# type-checks a consumer (timed) and runs it against API_URL; without API_URL it starts the server
# (`pnpm start`, in-memory database) on a free port and stops it afterwards.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill -- "-$server_pid" 2>/dev/null || kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== pack @transport-ops/sdk"
(cd "$root/packages/sdk" && pnpm run build >/dev/null && pnpm pack --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/transport-ops-sdk-*.tgz)"
packed="$(tar -xzOf "$tarball" package/package.json | node -pe 'JSON.parse(require("fs").readFileSync(0)).version')"
expected="$(node "$root/scripts/sdk-version.mjs")"
echo "$(basename "$tarball"): $(du -k "$tarball" | cut -f1) kB, version $packed"
if [ "$packed" != "$expected" ]; then echo "the tarball says $packed, the build is $expected (pnpm sdk:version)" >&2; exit 1; fi

echo "== install it into an empty project"
mkdir "$work/consumer" && cd "$work/consumer"
cat > package.json <<'JSON'
{ "name": "sdk-consumer", "private": true, "type": "module" }
JSON
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true,
    "lib": ["ES2022", "DOM", "DOM.Iterable"], "types": [], "skipLibCheck": false, "outDir": "out"
  },
  "files": ["consumer.ts", "env.d.ts"]
}
JSON
echo 'declare const process: { env: Record<string, string | undefined> };' > env.d.ts
cp "$root/scripts/sdk-consumer/consumer.ts" .
npm install --no-audit --no-fund --loglevel=error "$tarball" typescript@~5.9.3 >/dev/null
echo "installed: $(ls node_modules | tr '\n' ' ')"
if [ -d node_modules/@transport-ops/contract ]; then echo "the SDK pulled the workspace contract package" >&2; exit 1; fi

echo "== type-check the consumer"
# Once checking the SDK's declarations too (skipLibCheck off: they must compile in a strict
# project), once as most projects do (skipLibCheck on, the default of tsc --init and app templates).
start=$(date +%s%N)
npx tsc -p tsconfig.json
echo "consumer type-check: $(( ($(date +%s%N) - start) / 1000000 )) ms with skipLibCheck off"
start=$(date +%s%N)
npx tsc -p tsconfig.json --skipLibCheck --noEmit
echo "consumer type-check: $(( ($(date +%s%N) - start) / 1000000 )) ms with skipLibCheck on"

if [ -z "${API_URL:-}" ]; then
  # Built first (pnpm start would, inside the wait below): the wait is for the start alone.
  (cd "$root" && node scripts/build.mjs --if-stale >/dev/null)
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  echo "== start the server on 127.0.0.1:$port (in-memory database)"
  (cd "$root" && exec setsid env PORT="$port" HOST=127.0.0.1 PGLITE_DATA_DIR=memory:// LOG_LEVEL=warn pnpm start) >"$work/server.log" 2>&1 &
  server_pid=$!
  API_URL="http://127.0.0.1:$port"
  # Until it answers or exits; a start that hangs is bounded by the caller (CI's deadline).
  until curl -fs "$API_URL/health" >/dev/null 2>&1; do
    if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log" >&2; exit 1; fi
    sleep 0.5
  done
fi

echo "== run the consumer against $API_URL"
API_URL="$API_URL" node out/consumer.js
