#!/usr/bin/env bash
# Installs a release of the reference implementation of pi's RPC mode (npm
# @earendil-works/pi-coding-agent), together with the Node.js 22 it requires, into a cache folder.
#
#   install.sh [VERSION...]   the releases to install (default: 0.84.1, the release this
#                             workspace follows); several releases sit side by side
#   PI_REFERENCE_HOME         install root (default: ~/.cache/pi-reference)
#
# Each release goes into <root>/<version>/ with a launcher <root>/bin/pi@<version>; 0.84.1 also
# gets <root>/bin/pi. Safe to run repeatedly: finished steps are skipped. Prints the path of each
# launcher on stdout, one per line, in the order given; everything else goes to stderr.
# A sibling package release that the registry never published is replaced by the newest one
# published, with a warning; <root>/<version>/pinned.txt lists such replacements.
set -euo pipefail

default_version=0.84.1
install_root=${PI_REFERENCE_HOME:-$HOME/.cache/pi-reference}
mkdir -p "$install_root/bin"

# Writes the launcher $1 that runs the pi of folder $2 on the Node.js of folder $3, offline,
# without telemetry or update checks.
write_launcher() {
  local launcher=$1 pi_dir=$2 node_bin=$3 version=$4
  cat >"$launcher" <<SH
#!/usr/bin/env bash
# Runs the reference pi $version on its own Node.js, offline, without telemetry or update checks.
export PATH="$node_bin:\$PATH"
export PI_OFFLINE=\${PI_OFFLINE:-1} PI_SKIP_VERSION_CHECK=\${PI_SKIP_VERSION_CHECK:-1} PI_TELEMETRY=\${PI_TELEMETRY:-0}
exec "$pi_dir/node_modules/.bin/pi" "\$@"
SH
  chmod +x "$launcher"
}

install_version() {
  local pi_version=$1
  local version_dir=$install_root/$pi_version
  local node_dir=$version_dir/node pi_dir=$version_dir/pi
  mkdir -p "$node_dir" "$pi_dir"

  # The machine's Node may be older than 22; npm's `node` package carries a Node 22 binary.
  local node_bin=$node_dir/node_modules/node/bin
  if [[ ! -x $node_bin/node ]]; then
    echo "installing Node.js 22 into $node_dir" >&2
    (cd "$node_dir" && npm install --no-audit --no-fund --loglevel=error node@22 >&2)
  fi
  echo "node $("$node_bin/node" --version)" >&2

  if [[ ! -x $pi_dir/node_modules/.bin/pi ]]; then
    echo "installing pi $pi_version into $pi_dir" >&2
    # pi's dependencies on its sibling packages are caret ranges (or exact versions): pin every
    # @earendil-works package the release names, and the ones they name, to that release, so a
    # later sibling release cannot slip in.
    local siblings
    siblings=$(PATH=$node_bin:$PATH npm view "@earendil-works/pi-coding-agent@$pi_version" \
      dependencies --json | PATH=$node_bin:$PATH node -e '
        const deps = JSON.parse(require("fs").readFileSync(0, "utf8"));
        const names = new Map(Object.entries(deps).filter(([n]) => n.startsWith("@earendil-works/")));
        for (const n of ["pi-agent-core", "pi-ai", "pi-tui"]) {
          const name = "@earendil-works/" + n;
          if (!names.has(name)) names.set(name, "");
        }
        for (const [name, range] of names) console.log(name + " " + (range || "-"));')
    local overrides="" name range newest
    : >"$version_dir/pinned.txt"
    while read -r name range; do
      if PATH=$node_bin:$PATH npm view "$name@$pi_version" version >/dev/null 2>&1; then
        overrides+="${overrides:+,}\"$name\": \"$pi_version\""
      elif [[ $range != - && -z $(PATH=$node_bin:$PATH npm view "$name@$range" version 2>/dev/null) ]]; then
        # The release names a sibling release that was never published (pi 0.99.1 and 1.0.3
        # need @earendil-works/chord ^0.99.1 / ^1.0.3): pin the newest published one instead,
        # and say so, since this install is then not exactly the release as published.
        newest=$(PATH=$node_bin:$PATH npm view "$name" version)
        echo "WARNING: pi $pi_version needs $name $range, which is not published;" \
          "pinning $name $newest instead" >&2
        echo "$name $range -> $newest (not published)" >>"$version_dir/pinned.txt"
        overrides+="${overrides:+,}\"$name\": \"$newest\""
      fi
      # Otherwise a sibling that has no such release is left to the range pi gives it.
    done <<<"$siblings"
    cat >"$pi_dir/package.json" <<JSON
{
  "private": true,
  "dependencies": { "@earendil-works/pi-coding-agent": "$pi_version" },
  "overrides": { $overrides }
}
JSON
    (cd "$pi_dir" && PATH=$node_bin:$PATH npm install --no-audit --no-fund --loglevel=error >&2)
  fi

  local launcher=$install_root/bin/pi@$pi_version
  write_launcher "$launcher" "$pi_dir" "$node_bin" "$pi_version"
  if [[ $pi_version == "$default_version" ]]; then
    write_launcher "$install_root/bin/pi" "$pi_dir" "$node_bin" "$pi_version"
    launcher=$install_root/bin/pi
  fi
  "$launcher" --version >&2
  echo "$launcher"
}

if [[ $# -eq 0 ]]; then
  set -- "$default_version"
fi
for version in "$@"; do
  install_version "$version"
done
