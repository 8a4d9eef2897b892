#!/usr/bin/env bash
# The project's test command: installs what the build needs on a fresh machine, then runs
# every test suite (Swift unit and integration tests over real TLS on loopback).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in libssl-dev libsqlite3-dev libsodium-dev libzstd-dev pkg-config openssl; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

# PyPI zstandard: an independent writer and reader of compressed chat bodies for ChatCoreTests.
python3 -c "import zstandard" 2>/dev/null || python3 -m pip install -q zstandard

# No new SQL outside the chat store (issue 14).
scripts/check-controller-sql.sh
swift build --build-tests
swift test --skip-build 2>&1 | tee .build/test-output.txt
# Issue 15: a generated 1 GB file from Alice to Bob through two XFTP servers (child processes, real
# TLS on loopback), chunks spread over both; exits non-zero when the received file's SHA-256 differs
# (about 2 minutes on 2 cores; 4-5 GB in a temporary folder, removed afterwards).
.build/debug/xftp-bench --size-mb 1024 --servers 2 --no-baseline
# Reference vectors made by simplexmq's own code (../shared/refvectors), through our implementation.
if [ -d ../shared/refvectors ]; then
  .build/debug/simplex-vectors ../shared/refvectors/*.json | tee .build/vectors-output.txt | grep -v '^PASS' || true
  grep -q '^vectors: .* 0 failed' .build/vectors-output.txt
fi
# sntrup761 (Sources/CSNTRUP761) against the NIST known answers and an independent
# implementation from PyPI (pqcrypto), both ways, and the KEM values recorded by simplexmq.
python3 -c "import pqcrypto.kem, cryptography" 2>/dev/null || python3 -m pip install -q pqcrypto cryptography
python3 scripts/sntrup761_check.py ../shared/refvectors
# The C ABI from outside Swift: a C program and a Python ctypes script against a real relay.
Tests/CABI/run.sh
# The terminal client through pseudo-terminals, and its WebSocket API from another process.
Tests/CLI/run.sh
