#!/usr/bin/env bash
# Installs pi-acp (the ACP adapter that Zed and other ACP editors use to run pi) next to the
# reference install, on the reference's Node.js, at the versions of package-lock.json.
# conformance/tests/third_party_clients.rs drives it against both agents. Run
# conformance/reference/install.sh first.
#
#   PI_REFERENCE_HOME   install root (default: ~/.cache/pi-reference)
#
# Safe to run repeatedly. Prints the path of pi-acp's entry point as its last line on stdout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
install_root=${PI_REFERENCE_HOME:-$HOME/.cache/pi-reference}
node_bin=$install_root/0.84.1/node/node_modules/node/bin
dir=$install_root/clients/pi-acp
entry=$dir/node_modules/pi-acp/dist/index.js

if [[ ! -x $node_bin/node ]]; then
  echo "no Node.js at $node_bin: run conformance/reference/install.sh first" >&2
  exit 1
fi
mkdir -p "$dir"
if ! cmp -s "$here/package-lock.json" "$dir/package-lock.json" || [[ ! -f $entry ]]; then
  echo "installing pi-acp into $dir" >&2
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  (cd "$dir" && PATH=$node_bin:$PATH npm ci --no-audit --no-fund --loglevel=error >&2)
fi
echo "$entry"
