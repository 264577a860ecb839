#!/usr/bin/env bash
# Generates types for one release's RPC protocol in TypeScript, Python and Go, the way
# schema/README.md tells a client author to (conformance/tests/schema_clients.rs runs this very
# script and uses what it writes). Install the generators first: conformance/clientgen/install.sh.
#
#   generate.sh RELEASE OUT_DIR
#
# Writes OUT_DIR/pi-rpc.prepared.json (the generators' input, see prepare.mjs), then
#   pi_rpc.ts   json-schema-to-typescript: one exported type a definition
#   pi_rpc.py   datamodel-code-generator: pydantic v2 models, one class a definition
#   pi_rpc.go   quicktype: Go structs of package pirpc, one a definition
#
#   PI_REFERENCE_HOME   where install.sh put the tools (default: ~/.cache/pi-reference)
set -euo pipefail

release=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
home=${PI_REFERENCE_HOME:-$HOME/.cache/pi-reference}
node=$home/0.84.1/node/node_modules/node/bin/node
npm_tools=$home/tools/schema-ts/node_modules
py_tools=$home/tools/clientgen-py/bin
mkdir -p "$out"
prepared=$out/pi-rpc.prepared.json

"$node" "$here/prepare.mjs" "$here/../../schema/pi-rpc-$release.schema.json" >"$prepared"

# TypeScript. additionalProperties: no index signatures (records may still carry newer fields).
"$node" "$npm_tools/json-schema-to-typescript/dist/src/cli.js" -i "$prepared" -o "$out/pi_rpc.ts" \
  --additionalProperties=false --no-format --bannerComment="// pi RPC $release (generate.sh)"

# Python: pydantic v2 models; each union a RootModel (Event.model_validate(record).root).
"$py_tools/datamodel-codegen" --input "$prepared" --input-file-type jsonschema \
  --output-model-type pydantic_v2.BaseModel --disable-timestamp --formatters isort \
  --output "$out/pi_rpc.py" 2>"$out/datamodel-codegen.log" || {
  cat "$out/datamodel-codegen.log" >&2
  exit 1
}

# Go: structs of package pirpc; a union is one struct with every variant's fields.
# (quicktype lists the fields it types as any JSON value, interface{}, on stderr: a log file.)
if ! "$node" "$npm_tools/quicktype/dist/index.js" --src-lang schema --lang go --package pirpc \
  --top-level PiRpc -o "$out/pi_rpc.go" "$prepared" >"$out/quicktype.log" 2>&1; then
  cat "$out/quicktype.log" >&2
  exit 1
fi
if command -v gofmt >/dev/null; then gofmt -w "$out/pi_rpc.go"; fi
