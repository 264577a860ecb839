#!/usr/bin/env bash
# Installs json-schema-to-typescript, TypeScript (tsc) and quicktype next to the reference
# install, on the reference's Node.js, at the versions of package-lock.json (npm ci: the same
# tree each time).
# conformance/tests/schema_typescript.rs runs them to check the schema against the reference's
# type declarations; conformance/clientgen/generate.sh runs quicktype for Go. Run
# conformance/reference/install.sh first.
#
#   PI_REFERENCE_HOME   install root (default: ~/.cache/pi-reference)
#
# Safe to run repeatedly (nothing is done when the installed lock file is this one). Prints the
# install folder (holding node_modules/) as its last line on stdout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
install_root=${PI_REFERENCE_HOME:-$HOME/.cache/pi-reference}
node_bin=$install_root/0.84.1/node/node_modules/node/bin
dir=$install_root/tools/schema-ts

if [[ ! -x $node_bin/node ]]; then
  echo "no Node.js at $node_bin: run conformance/reference/install.sh first" >&2
  exit 1
fi
mkdir -p "$dir"
if ! cmp -s "$here/package-lock.json" "$dir/package-lock.json" \
  || [[ ! -f $dir/node_modules/typescript/bin/tsc ]] \
  || [[ ! -f $dir/node_modules/json-schema-to-typescript/dist/src/index.js ]] \
  || [[ ! -f $dir/node_modules/quicktype/dist/index.js ]] \
  || [[ ! -f $dir/node_modules/@types/node/package.json ]]; then
  echo "installing json-schema-to-typescript, typescript and quicktype into $dir" >&2
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  (cd "$dir" && PATH=$node_bin:$PATH npm ci --no-audit --no-fund --loglevel=error >&2)
fi
echo "$dir"
