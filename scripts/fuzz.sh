#!/usr/bin/env bash
# Fuzzes the SMP decoders (block, transmission, command, response, error, message body,
# handshakes, padding, base64url, server address) with libFuzzer + AddressSanitizer.
#
#   scripts/fuzz.sh                        # build, then 1,000,000 inputs (RUNS=N to change)
#   scripts/fuzz.sh -max_total_time=600    # extra arguments go to libFuzzer
#   scripts/fuzz.sh fuzz-out/crash-<sha1>  # re-run one input (a saved crash reproducer)
#
# The target is the SwiftPM library SMPFuzz (Fuzz/SMPFuzz), built in .build-fuzz (release) with
# -sanitize=fuzzer,address for every Swift module, then linked with libFuzzer's main.
# Corpus, crash reproducers and the log go to fuzz-out/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${FUZZ_SCRATCH:-.build-fuzz}"
# Release: optimized code keeps Swift's bounds and overflow checks, and runs ~100x faster than
# debug on 16 KB inputs (FUZZ_CONFIG=debug for -Onone with assertions).
CONFIG="${FUZZ_CONFIG:-release}"
OUT=fuzz-out
RUNS="${RUNS:-1000000}"

swift build -c "$CONFIG" --scratch-path "$SCRATCH" --target SMPFuzz -Xswiftc -sanitize=fuzzer,address
BIN="$(swift build -c "$CONFIG" --scratch-path "$SCRATCH" --show-bin-path)"

# Link SMPFuzz and everything it depends on; skip test objects and any object with its own main
# (executables built in the same scratch path), since libFuzzer brings main.
objects=()
while IFS= read -r -d '' o; do
  case "$o" in *Tests.build/*|*PackageDiscoveredTests*|*test-entry-point*) continue ;; esac
  if nm --defined-only "$o" 2>/dev/null | grep -qE ' T main$'; then continue; fi
  objects+=("$o")
done < <(find "$BIN" -path '*.build/*' -name '*.o' -print0)
FUZZER="$BIN/smp-fuzz"
swiftc -sanitize=fuzzer,address "${objects[@]}" -lstdc++ -o "$FUZZER"
echo "built $FUZZER (${#objects[@]} objects)"

mkdir -p "$OUT/corpus" "$OUT/seeds"
python3 Fuzz/make-seeds.py "$OUT/seeds"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
if [ $# -ge 1 ] && [ -f "$1" ]; then
  exec "$FUZZER" "$@"
fi
"$FUZZER" -runs="$RUNS" -max_len=16500 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$OUT/" "$@" "$OUT/corpus" "$OUT/seeds" 2>&1 | tee "$OUT/fuzz.log"
exit "${PIPESTATUS[0]}"
