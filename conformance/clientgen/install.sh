#!/usr/bin/env bash
# Installs what conformance/clientgen/generate.sh runs, at pinned versions: quicktype (Go) with
# json-schema-to-typescript and tsc (TypeScript) from conformance/schema-ts/install.sh, and
# datamodel-code-generator (Python, requirements.txt) into a virtual environment beside them;
# Go itself (Debian's golang-go) when `go` is missing and apt-get can install it. Run
# conformance/reference/install.sh first (its Node.js runs the npm tools).
#
#   PI_REFERENCE_HOME   install root (default: ~/.cache/pi-reference)
#
# Safe to run repeatedly (nothing is done when the pins are the installed ones). Prints the
# tools folder (holding schema-ts/ and clientgen-py/) as its last line on stdout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
install_root=${PI_REFERENCE_HOME:-$HOME/.cache/pi-reference}
tools=$install_root/tools
bash "$here/../schema-ts/install.sh" >/dev/null

# Debian's python3 makes virtual environments only with python3-venv (ensurepip).
apt_install() {
  command -v apt-get >/dev/null || return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >&2
}
if ! python3 -c 'import ensurepip' 2>/dev/null; then
  echo "installing python3-venv (Debian)" >&2
  apt_install python3-venv
fi

venv=$tools/clientgen-py
if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt" \
  || [[ ! -x $venv/bin/datamodel-codegen ]]; then
  echo "installing datamodel-code-generator into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    -r "$here/requirements.txt" >&2
  cp "$here/requirements.txt" "$venv/"
fi

if ! command -v go >/dev/null; then
  echo "installing golang-go (Debian)" >&2
  apt_install golang-go
fi
echo "$tools"
