#!/usr/bin/env bash
# Installs oh-my-pi (npm @oh-my-pi/pi-coding-agent, a fork of pi) and the Bun it runs on, at the
# versions of package-lock.json, for the suite's `oh-my-pi` agent profile
# (conformance/agents/oh-my-pi.yaml).
#
#   PI_PORTS_HOME   install root (default: ~/.cache/pi-ports)
#
# The release is 18.2.3, not the newest (18.3.4): the registry this project installs from
# lacks 18.3.4's sibling packages (@oh-my-pi/pi-ai@18.3.4 and ten more), so 18.3.4 cannot be
# installed; 18.2.3 is the newest release whose dependencies all resolve.
#
# Safe to run repeatedly. Prints the launcher's path as its last line on stdout (everything else
# goes to stderr).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=${PI_PORTS_HOME:-$HOME/.cache/pi-ports}
dir=$root/oh-my-pi-18.2.3
launcher=$dir/omp
mkdir -p "$dir"
stamp=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ $(cat "$dir/installed.txt" 2>/dev/null) != "$stamp" || ! -x $launcher ]]; then
  echo "installing oh-my-pi 18.2.3 into $dir" >&2
  cp "$here/package.json" "$here/package-lock.json" "$dir/"
  # `npm install`, not `npm ci`: the lock cannot list pi-natives' packages for other platforms,
  # which the registry lacks, and `npm ci` refuses a lock without them. The versions are exact.
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2)
  # Bun's npm package puts its binary in place with a postinstall script that npm may hold
  # back; the platform packages carry the binary itself. The first one that runs is kept.
  bun=""
  for candidate in "$dir"/node_modules/bun/bin/bun.exe "$dir"/node_modules/@oven/bun-linux-*/bin/bun; do
    if [[ -x $candidate ]] && "$candidate" --version >/dev/null 2>&1; then
      bun=$candidate
      break
    fi
  done
  if [[ -z $bun ]]; then
    echo "no Bun binary of the installed packages runs on this machine" >&2
    exit 1
  fi
  cat >"$launcher" <<SH
#!/usr/bin/env bash
# Runs oh-my-pi 18.2.3 on Bun $("$bun" --version).
exec "$bun" "$dir/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js" "\$@"
SH
  chmod +x "$launcher"
  echo "$stamp" >"$dir/installed.txt"
fi
echo "$launcher"
