#!/usr/bin/env bash
# Installs Atrium as an embedding team would: builds and packs the published packages, installs the tarballs (and
# `effect`, from the npm cache when it has it) into a copy of this example outside the repository, then runs the domain
# over in-memory ports and over PostgreSQL (DATABASE_URL when set, else an embedded server) and type-checks the example
# under `moduleResolution` nodenext and bundler.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# Node 24 (the repository's pinned one) runs the example's TypeScript by type stripping.
export PATH="$repo/node_modules/node/bin:$PATH"
node --version | grep -q '^v2[4-9]' || { echo "embedding: needs Node 24 at $repo/node_modules/node/bin" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/atrium-embedding-XXXXXX")"
trap 'rm -rf "$work"' EXIT
node "$repo/scripts/pack-packages.ts" "$work/packs"
cp -R "$here/package.json" "$here/tsconfig.json" "$here/tsconfig.bundler.json" "$here/src" "$work/"
cd "$work"
npm install --no-audit --no-fund --prefer-offline --no-save ./packs/*.tgz
# Nothing may come from the repository: every @atrium package is the installed tarball's build.
for name in domain client adapters-pg; do
  test -f "node_modules/@atrium/$name/dist/index.js" || { echo "embedding: @atrium/$name is not installed from its tarball" >&2; exit 1; }
done

node src/memory.ts
node src/postgres.ts
npx tsc -p tsconfig.json
npx tsc -p tsconfig.bundler.json
echo "embedding: the packed packages install, run in memory and on PostgreSQL, and type-check under nodenext and bundler"
