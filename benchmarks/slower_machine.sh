#!/usr/bin/env bash
# Run a command as if on a slower machine: every process it starts shares a CPU quota (a cgroup's, root only) of
# SHARE of this machine's cores, so its threads run at full speed for SHARE of each 2 ms and wait the rest. An
# emulation, not another machine: memory and disk keep their speed, and the speed probe says what the model reads
# under it. Not linear: llama.cpp's two threads lose more than the share (they wait for each other at every
# layer), so find the share by probing first (2026-11-28, a machine whose 0.5B read 142 prompt tokens/s: 0.85 ->
# 92; with a 20 ms period 0.74 -> 93, but the numpy figures' few-ms products then ran between the pauses at full
# speed, so a plan before set-up did not see the slower machine at all).
#
#   benchmarks/slower_machine.sh SHARE COMMAND [ARGS ...]
#   e.g. benchmarks/slower_machine.sh 0.85 benchmarks/fresh_run.sh
set -euo pipefail
share=${1:?a share of the cores, e.g. 0.85}
shift
period=${LCLAB_SLOWER_PERIOD_US:-2000}  # µs: short, so that a benchmark of a few ms runs at the share too
quota=$(python3 -c "import os, sys; print(int(float(sys.argv[1]) * os.cpu_count() * $period))" "$share")
if [ -d /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/cpu ]; then  # cgroup v1
  group=/sys/fs/cgroup/cpu/lclab-slower-$$
  mkdir "$group"
  echo "$period" > "$group/cpu.cfs_period_us"
  echo "$quota" > "$group/cpu.cfs_quota_us"
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then  # cgroup v2
  group=/sys/fs/cgroup/lclab-slower-$$
  mkdir "$group"
  echo "$quota $period" > "$group/cpu.max"
else
  echo "slower_machine: no writable cgroup cpu controller here (root is needed)" >&2
  exit 1
fi
cleanup() { rmdir "$group" 2>/dev/null || true; }
trap cleanup EXIT
echo "slower_machine: $share of $(nproc) cores ($quota µs of every $period µs)"
echo $$ > "$group/cgroup.procs"  # this shell, and so everything it starts from here
status=0
"$@" || status=$?
echo $$ > "$(dirname "$group")/cgroup.procs"  # out again, so that the group can be removed
exit $status
