#!/usr/bin/env bash
# The production artefact, as the container image wraps it: `pnpm deploy --prod` of the server
# into a temporary folder (production dependencies only, no tsx, no TypeScript), then
# `node dist/server.js` there in production mode, probed over HTTP:
#   refuses to start without DATABASE_URL; bootstraps a database (migrations, reference data,
#   admin:create); /health, /ready, /openapi.json (compressed), /docs; login of the new admin;
#   a second process on the same embedded database refuses to start.
set -euo pipefail
cd "$(dirname "$0")/.."

node scripts/build.mjs --if-stale
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then kill -TERM "$server_pid"; wait "$server_pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

pnpm --filter @transport-ops/server deploy --legacy --prod "$work/app" >/dev/null
cd "$work/app"
for dev in tsx typescript vitest; do
  if [[ -e "node_modules/$dev" ]]; then echo "FAIL: development dependency $dev in the deploy folder"; exit 1; fi
done
echo "deploy folder: $(du -sh . | cut -f1), production dependencies only"

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
export NODE_ENV=production HOST=127.0.0.1 PORT="$port" LOG_LEVEL=warn
export JWT_SECRET="deploy-check-secret-0123456789abcdef0123456789"
export WEBHOOK_SECRET_KEYS="deploy-check:$(head -c 32 /dev/urandom | base64)"
base="http://127.0.0.1:$port"

echo "== production without DATABASE_URL refuses to start"
if out="$(node dist/server.js 2>&1)"; then echo "FAIL: started without DATABASE_URL"; exit 1; fi
grep -q "DATABASE_URL is required in production" <<<"$out" || { echo "FAIL: unexpected message: $out"; exit 1; }
echo "ok: $out"

export ALLOW_EMBEDDED_DATABASE=true PGLITE_DATA_DIR="$work/data"
echo "== bootstrap: migrations, reference data, first administrator"
node dist/db/cli.js migrate
ADMIN_PASSWORD="first-admin-password" node dist/db/cli.js admin:create ops ops@transport-ops.example

echo "== start and probe"
node dist/server.js &
server_pid=$!
for _ in $(seq 1 240); do
  curl -fsS "$base/health" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { echo "FAIL: the server exited"; exit 1; }
  sleep 0.5
done
curl -fsS "$base/health" | grep -q '"status":"ok"'
curl -fsS "$base/ready" | grep -q '"status":"ready"'
curl -fsS -H 'accept-encoding: br' -o /dev/null -w '%{http_code} %header{content-encoding}\n' "$base/openapi.json" | grep -q '^200 br$'
curl -fsS -o "$work/docs.html" "$base/docs"
# Production documents never advertise the demo accounts' password.
if grep -q demo1234 "$work/docs.html" || curl -fsS "$base/openapi.json" | grep -q demo1234; then
  echo "FAIL: the production docs or contract show the demo password"; exit 1
fi
token="$(curl -fsS -H 'content-type: application/json' -d '{"username":"ops","password":"first-admin-password"}' "$base/auth/login" | node -pe 'JSON.parse(require("fs").readFileSync(0,"utf8")).result.access_token')"
curl -fsS -H "authorization: Bearer $token" "$base/admin/configurations/roles" | grep -q '"code":"SUPER_ADMIN"'
curl -fsS -H "authorization: Bearer $token" "$base/admin/configurations/countries" >/dev/null
echo "ok: health, ready, contract (br), docs, login of the new administrator, reference data"

echo "== a second process on the same embedded database refuses to start"
if out="$(PORT=0 node dist/server.js 2>&1)"; then echo "FAIL: a second process started"; exit 1; fi
grep -q "is in use by process $server_pid" <<<"$out" || { echo "FAIL: unexpected message: $out"; exit 1; }
echo "ok: $out"

kill -TERM "$server_pid"
wait "$server_pid"
server_pid=""
echo "deploy check passed"
