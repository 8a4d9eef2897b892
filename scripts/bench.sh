#!/usr/bin/env bash
# Builds smp-bench and smp-server in release (scratch path .build-release, so it does not wait
# for or disturb the debug build in .build) and runs the benchmark:
#   a. TLS echo baseline, b. SEND->MSG deliveries/s and latency (100 and 1,000 queues),
#   c. relay memory per idle queue (100,000 queues, smp-server as a child process).
#
#   scripts/bench.sh            # full run (a few minutes, most of it creating 100k queues)
#   scripts/bench.sh --quick    # smoke test: short runs, 10,000 queues
#   scripts/bench.sh --help     # all options of smp-bench
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${BENCH_SCRATCH:-.build-release}"
swift build -c release --scratch-path "$SCRATCH" --product smp-server
swift build -c release --scratch-path "$SCRATCH" --product smp-bench
exec "$SCRATCH/release/smp-bench" "$@"
