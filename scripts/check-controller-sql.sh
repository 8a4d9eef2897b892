#!/usr/bin/env bash
# Issue 14: SQL belongs in Sources/ChatCore/Store (queries named for what they do). Controller
# code still has SQL that is being moved there domain by domain; this check fails when the
# number of SQL call sites in Controller/ grows, and MAX is lowered as domains move (never raised).
set -euo pipefail
cd "$(dirname "$0")/.."
MAX=0
n=$({ grep -hE 'sql:|db\.run\(|\.execute\(' Sources/ChatCore/Controller/*.swift || true; } | wc -l)
if [ "$n" -gt "$MAX" ]; then
  echo "SQL in Sources/ChatCore/Controller: $n call sites (at most $MAX); put new queries in Sources/ChatCore/Store" >&2
  exit 1
fi
echo "SQL call sites left in ChatCore/Controller: $n (limit $MAX)"
