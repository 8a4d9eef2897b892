#!/usr/bin/env bash
# Builds xftp-bench in release (scratch path .build-release) and runs xftp-bench:
# upload + download of a generated file through XFTP servers run as child processes against a plain TLS
# stream of the same bytes, with the peak RSS of client and servers.
#
#   scripts/xftp-bench.sh                          # 256 MB through one server
#   scripts/xftp-bench.sh --size-mb 1024 --servers 2
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${BENCH_SCRATCH:-.build-release}"
swift build -c release --scratch-path "$SCRATCH" --product xftp-bench
exec "$SCRATCH/release/xftp-bench" "$@"
