#!/usr/bin/env bash
# Run a command as if on a slower machine: every process it starts shares a CPU quota (a cgroup's, root only) of
# SHARE of this machine's cores, so its threads run at full speed for SHARE of each 20 ms and wait the rest. An
# emulation, not another machine: memory and disk keep their speed, and the probe says what the model reads here.
#
#   benchmarks/slower_machine.sh SHARE COMMAND [ARGS ...]
#   e.g. benchmarks/slower_machine.sh 0.67 benchmarks/fresh_run.sh   (a 142 prompt tokens/s machine as ~95)
set -euo pipefail
share=${1:?a share of the cores, e.g. 0.67}
shift
period=20000  # µs: short, so that llama.cpp's threads stop and start together rather than for long stretches
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
