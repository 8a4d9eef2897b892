#!/usr/bin/env bash
# Runs an SMP relay on 127.0.0.1:5223 from ./smp-server-data, creating its identity on first run.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA="${SMP_DATA:-./smp-server-data}"
swift build -c release --product smp-server
if [ ! -f "$DATA/smp-server.ini" ]; then
  .build/release/smp-server init --data "$DATA" "$@"
fi
exec .build/release/smp-server start --data "$DATA"
