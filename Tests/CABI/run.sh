#!/usr/bin/env bash
# Tests of libsimplex's C ABI (include/simplex.h): builds libsimplex.so and smp-server (debug),
# starts a relay on a free loopback port, then runs Tests/CABI/cabi_test.c (gcc) and
# Tests/CABI/cabi_test.py (ctypes) against it. Exits non-zero on any failure.
#
#   Tests/CABI/run.sh                    # from the package root (or anywhere)
#   CABI_VALGRIND=1 Tests/CABI/run.sh    # also runs the C test under valgrind (slow)
#
# Leak check by hand, with a relay running and its address in SIMPLEX_SMP_SERVERS:
#   gcc -Wall -Werror -g -Iinclude Tests/CABI/cabi_test.c -L.build/debug -lsimplex \
#       -Wl,-rpath,"$PWD/.build/debug" -o /tmp/cabi_test
#   mkdir -p /tmp/vglib && objcopy --strip-debug .build/debug/libsimplex.so /tmp/vglib/libsimplex.so
#   LD_LIBRARY_PATH=/tmp/vglib SIMPLEX_SMP_SERVERS=smp://... valgrind --leak-check=full \
#       --show-leak-kinds=definite --errors-for-leak-kinds=definite --undef-value-errors=no \
#       --error-exitcode=3 /tmp/cabi_test
# Notes: valgrind 3.19 cannot read the DWARF 5 debug info Swift emits ("Possibly corrupted
# debuginfo file"), hence the stripped copy (symbols remain, so stacks still have names).
# Only "definitely lost" blocks count: the Swift runtime, Dispatch and the NIO threads keep
# process-lifetime allocations that valgrind reports as "possibly lost" or "still reachable".
# --undef-value-errors=no silences the Swift runtime's known false positives in
# swift_initStructMetadata; invalid reads/writes and definite leaks still fail the run.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
start=$(date +%s)

swift build --product simplex
swift build --product smp-server

work="$(mktemp -d /tmp/cabi-run-XXXXXX)"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
.build/debug/smp-server init --data "$work/relay" --port "$port" --host 127.0.0.1 >"$work/init.log"
.build/debug/smp-server start --data "$work/relay" >"$work/relay.log" 2>"$work/relay.err" &
server_pid=$!
for _ in $(seq 1 100); do
    grep -q '^Listening on' "$work/relay.log" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/relay.err"; echo "smp-server exited" >&2; exit 1; }
    sleep 0.1
done
address=$(sed -n 's/^Server address: //p' "$work/relay.log" | head -1)
[[ "$address" == smp://* ]] || { cat "$work/relay.log" "$work/relay.err"; echo "no server address" >&2; exit 1; }
echo "relay: $address"
export SIMPLEX_SMP_SERVERS="$address"

gcc -std=c11 -Wall -Wextra -Werror -g -Iinclude Tests/CABI/cabi_test.c -L.build/debug -lsimplex \
    -Wl,-rpath,"$root/.build/debug" -o "$work/cabi_test"
"$work/cabi_test"

LIBSIMPLEX="$root/.build/debug/libsimplex.so" python3 Tests/CABI/cabi_test.py

if [[ "${CABI_VALGRIND:-0}" == 1 ]]; then
    if command -v valgrind >/dev/null; then
        mkdir -p "$work/vglib"
        objcopy --strip-debug .build/debug/libsimplex.so "$work/vglib/libsimplex.so"
        LD_LIBRARY_PATH="$work/vglib" valgrind -q --leak-check=full --show-leak-kinds=definite \
            --errors-for-leak-kinds=definite --undef-value-errors=no --error-exitcode=3 "$work/cabi_test" \
            2> >(grep -v '^### unhandled dwarf' >&2)
        echo "valgrind: no definite leaks or invalid accesses"
    else
        echo "CABI_VALGRIND=1 but valgrind is not installed" >&2
        exit 1
    fi
fi

echo "Tests/CABI: all passed in $(( $(date +%s) - start )) s"
