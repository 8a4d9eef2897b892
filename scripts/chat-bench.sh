#!/usr/bin/env bash
# Builds chat-bench in release (scratch path .build-release) and runs it: core-to-core
# messages/s with persistence, and /_get chats latency with 10,000 contacts / 1,000,000 items.
#
#   scripts/chat-bench.sh            # full run (a few minutes, most of it filling the database)
#   scripts/chat-bench.sh --quick    # smoke test
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${BENCH_SCRATCH:-.build-release}"
swift build -c release --scratch-path "$SCRATCH" --product chat-bench
exec "$SCRATCH/release/chat-bench" "$@"
