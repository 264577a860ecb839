#!/usr/bin/env bash
# Runs the fuzz targets (cargo-fuzz, libFuzzer; needs a nightly toolchain):
#   agent/fuzz/fuzz.sh smoke [SECONDS]             every target for SECONDS (default 10)
#   agent/fuzz/fuzz.sh long [RUNS] [TARGET...]     each target (default all) for RUNS executions
#                                                  (default 10,000,000), one after the other
# First the seed corpus is made from the scenarios (agent/fuzz/target/seeds); what a run finds
# is kept in agent/fuzz/corpus/<target>, crashes in agent/fuzz/artifacts/<target>. Without a
# nightly toolchain it says so and does nothing (exit 0).
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-smoke}
[ $# -gt 0 ] && shift

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "!! FUZZING SKIPPED: no nightly toolchain (rustup toolchain install nightly)"
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

fuzz_dir=agent/fuzz
seeds=$fuzz_dir/target/seeds
cargo run --quiet --manifest-path $fuzz_dir/Cargo.toml -p pi-fuzz-seed --locked -- scenarios "$seeds"
# Safe Rust throughout (unsafe_code is forbidden): no sanitizer, debug assertions on.
cargo +nightly fuzz build --fuzz-dir $fuzz_dir -s none
targets=$(cargo +nightly fuzz list --fuzz-dir $fuzz_dir)

run() {
  local target=$1
  shift
  mkdir -p "$fuzz_dir/corpus/$target"
  echo "== fuzz $target"
  cargo +nightly fuzz run --fuzz-dir $fuzz_dir -s none "$target" \
    "$fuzz_dir/corpus/$target" "$seeds/$target" -- \
    -max_len=65536 -timeout=10 -print_final_stats=1 "$@"
}

case $mode in
  smoke)
    seconds=${1:-10}
    for target in $targets; do run "$target" -max_total_time="$seconds"; done
    ;;
  long)
    runs=${1:-10000000}
    [ $# -gt 0 ] && shift
    [ $# -gt 0 ] && targets="$*"
    for target in $targets; do run "$target" -runs="$runs"; done
    ;;
  *)
    echo "usage: $0 smoke [SECONDS] | long [RUNS] [TARGET...]" >&2
    exit 2
    ;;
esac
