#!/usr/bin/env bash
# Runs the terminal client, simplex-chat. With no -s option it uses a relay embedded in the
# process on 127.0.0.1 (shared by local clients), so two people can chat with no set-up:
#
#   scripts/run.sh -d ./alice      # terminal 1
#   scripts/run.sh -d ./bob        # terminal 2
#
# Any option of simplex-chat can follow (scripts/run.sh --help lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
for pkg in libssl-dev libsqlite3-dev libsodium-dev libzstd-dev pkg-config; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
swift build --product simplex-chat >&2
exec "$(swift build --show-bin-path)/simplex-chat" "$@"
