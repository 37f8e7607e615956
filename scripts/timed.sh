#!/usr/bin/env bash
# timed.sh NAME COMMAND...: runs COMMAND, then says how long it took
# ("ci: NAME took N s", the lines .ci/run and `make test` print for each
# step), and exits with COMMAND's status.
name=$1
shift
start=$(date +%s)
"$@"
status=$?
echo "ci: $name took $(( $(date +%s) - start )) s"
exit $status
