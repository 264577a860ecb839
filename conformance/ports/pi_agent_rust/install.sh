#!/usr/bin/env bash
# Installs pi_agent_rust (crates.io, a Rust port of pi) at 0.8.0 with its own lock file, for the
# suite's `pi_agent_rust` agent profile (conformance/agents/pi_agent_rust.yaml).
#
#   PI_PORTS_HOME        install root (default: ~/.cache/pi-ports)
#   PI_PORTS_TARGET_DIR  cargo's build folder, kept (default: a folder under <root>, removed
#                        after the install: it holds about 2.3 GB)
#
# The first install builds the crate: 26 minutes on the 2-core development machine (loaded), with
# its own release profile; less with the one set below. Safe to run repeatedly
# (an installed 0.8.0 is kept).
#
# RUSTC_BOOTSTRAP=1: one of its locked dependencies, fsqlite-pager 0.4.10, turns on a nightly
# feature (`core_intrinsics`) on x86_64, which the stable compiler refuses; this lets the stable
# toolchain build it (without it `cargo install` fails with E0554).
#
# Its default features but `ftui` (its full-screen terminal UI, which RPC mode does not use):
# ftui-layout 0.9.0 calls `isolate_lowest_one`, which the stable compiler this project builds
# with (1.95) does not have yet (E0658).
#
# Prints the program's path as its last line on stdout (everything else goes to stderr).
set -euo pipefail

root=${PI_PORTS_HOME:-$HOME/.cache/pi-ports}
dir=$root/pi_agent_rust-0.8.0
program=$dir/bin/pi
if [[ ! -x $program ]] || ! "$program" --version 2>/dev/null | grep -q "0\.8\.0"; then
  echo "building pi_agent_rust 0.8.0 into $dir" >&2
  build=${PI_PORTS_TARGET_DIR:-$root/pi_agent_rust-build}
  # Its release profile (one codegen unit, whole-program LTO) is for shipping; a conformance
  # fixture runs the same code built faster: no LTO, sixteen codegen units in parallel.
  CARGO_TARGET_DIR=$build RUSTC_BOOTSTRAP=1 \
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install pi_agent_rust --version 0.8.0 --locked --root "$dir" \
      --no-default-features --features sqlite-sessions,tui,bpe-tokens >&2
  [[ -n ${PI_PORTS_TARGET_DIR:-} ]] || rm -rf "$build"
fi
echo "$program"
