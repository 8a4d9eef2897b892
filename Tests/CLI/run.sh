#!/usr/bin/env bash
# Drives the simplex-chat terminal client through pseudo-terminals and its WebSocket API from
# another process (Tests/CLI/cli_test.py), on a fresh temporary HOME.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product simplex-chat
swift build --product xftp-server
timeout 900 python3 Tests/CLI/cli_test.py "$(swift build --show-bin-path)/simplex-chat"
