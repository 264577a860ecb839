#!/usr/bin/env bash
# Installs the reference implementation of pi's RPC mode, pi 0.84.1 from npm
# (@earendil-works/pi-coding-agent), together with the Node.js 22 it requires, into a cache folder.
#
#   PI_REFERENCE_HOME   install root (default: ~/.cache/pi-reference)
#
# Safe to run repeatedly: finished steps are skipped. Prints the path of a launcher, bin/pi,
# as its last line on stdout; everything else goes to stderr.
set -euo pipefail

pi_version=0.84.1
install_root=${PI_REFERENCE_HOME:-$HOME/.cache/pi-reference}
version_dir=$install_root/$pi_version
node_dir=$version_dir/node
pi_dir=$version_dir/pi
launcher=$install_root/bin/pi

mkdir -p "$node_dir" "$pi_dir" "$install_root/bin"

# The machine's Node may be older than 22; npm's `node` package carries a Node 22 binary.
node_bin=$node_dir/node_modules/node/bin
if [[ ! -x $node_bin/node ]]; then
  echo "installing Node.js 22 into $node_dir" >&2
  (cd "$node_dir" && npm install --no-audit --no-fund --loglevel=error node@22 >&2)
fi
echo "node $("$node_bin/node" --version)" >&2

if [[ ! -x $pi_dir/node_modules/.bin/pi ]]; then
  echo "installing pi $pi_version into $pi_dir" >&2
  # pi's own dependency ranges are caret ranges; pin its sibling packages to the same version.
  cat >"$pi_dir/package.json" <<JSON
{
  "private": true,
  "dependencies": { "@earendil-works/pi-coding-agent": "$pi_version" },
  "overrides": {
    "@earendil-works/pi-agent-core": "$pi_version",
    "@earendil-works/pi-ai": "$pi_version",
    "@earendil-works/pi-client": "$pi_version",
    "@earendil-works/pi-protocol": "$pi_version",
    "@earendil-works/pi-telemetry": "$pi_version",
    "@earendil-works/pi-tui": "$pi_version"
  }
}
JSON
  (cd "$pi_dir" && PATH=$node_bin:$PATH npm install --no-audit --no-fund --loglevel=error >&2)
fi

cat >"$launcher" <<SH
#!/usr/bin/env bash
# Runs the reference pi $pi_version on its own Node.js, offline, without telemetry or update checks.
export PATH="$node_bin:\$PATH"
export PI_OFFLINE=\${PI_OFFLINE:-1} PI_SKIP_VERSION_CHECK=\${PI_SKIP_VERSION_CHECK:-1} PI_TELEMETRY=\${PI_TELEMETRY:-0}
exec "$pi_dir/node_modules/.bin/pi" "\$@"
SH
chmod +x "$launcher"
"$launcher" --version >&2
echo "$launcher"
