#!/usr/bin/env bash
# Builds agent-bench in release (scratch path .build-release, shared with scripts/bench.sh) and
# runs it: connection set-up time, agent->agent throughput with persistence, ratchet cost ratio.
#
#   scripts/agent-bench.sh            # full run (~1 minute)
#   scripts/agent-bench.sh --quick    # smoke test
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${BENCH_SCRATCH:-.build-release}"
swift build -c release --scratch-path "$SCRATCH" --product agent-bench
exec "$SCRATCH/release/agent-bench" "$@"
