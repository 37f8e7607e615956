#!/usr/bin/env bash
# Runs every Fuzz target of the main module for $FUZZTIME (default 4s) each.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-4s}"
count=0
while IFS= read -r file; do
  dir="./$(dirname "$file")"
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    echo "fuzz: $dir $target ($fuzztime)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$dir" > /tmp/tether-fuzz.log 2>&1 || { cat /tmp/tether-fuzz.log; exit 1; }
    count=$((count + 1))
  done
done < <(git ls-files '*_test.go' | grep -v '^bench/' | xargs grep -l '^func Fuzz' | sort)
echo "fuzz: $count targets ran, no crash"
