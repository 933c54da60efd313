#!/usr/bin/env bash
# A container's memory limit is the memory a run has (common/io.c, host_memory_available()):
# in a memory cgroup limited to 512 MiB, `01_cpu_serial/run -n 2^28` (3 GiB) must refuse the
# size with exit 2 and one line, not be killed by the kernel's OOM killer.
#   tests/check_cgroup_memory.sh RUN
# Needs root and a writable memory cgroup (v2 with the memory controller, or v1); otherwise it
# prints "SKIP ..." and exits 0. Exit 1 if the run did anything but refuse.
set -u
run=${1:?usage: tests/check_cgroup_memory.sh RUN}
limit=$((512 * 1024 * 1024))
group=""
if [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  group=/sys/fs/cgroup/scan_memory_test.$$
  if mkdir "$group" 2>/dev/null && ! echo "$limit" > "$group/memory.max" 2>/dev/null; then
    rmdir "$group"; group=""  # the memory controller is not enabled for the group's children
  elif [ ! -d "$group" ]; then group=""; fi
elif [ -w /sys/fs/cgroup/memory ]; then
  group=/sys/fs/cgroup/memory/scan_memory_test.$$
  if mkdir "$group" 2>/dev/null && ! echo "$limit" > "$group/memory.limit_in_bytes" 2>/dev/null; then
    rmdir "$group"; group=""
  elif [ ! -d "$group" ]; then group=""; fi
fi
if [ -z "$group" ]; then
  echo "SKIP memory cgroup: none can be made here (needs root and a writable memory cgroup)"
  echo "container memory limit: skipped"
  exit 0
fi
trap 'rmdir "$group" 2>/dev/null' EXIT
out=$(sh -c 'echo $$ > "$1/cgroup.procs" 2>/dev/null || exit 99; exec "$2" -n 2^28' sh "$group" "$run" 2>&1)
status=$?
if [ "$status" -eq 99 ]; then  # e.g. cgroup v2's rule against processes in inner groups
  echo "SKIP memory cgroup: this process cannot join one made here"
  echo "container memory limit: skipped"
  exit 0
fi
if [ "$status" -eq 2 ] && printf '%s\n' "$out" | grep -q "needs 3.00 GiB of host memory; 0.[0-9]* GiB are free"; then
  echo "container memory limit: -n 2^28 in a 512 MiB cgroup refused (exit 2): ok"
  exit 0
fi
echo "FAIL: -n 2^28 in a 512 MiB cgroup gave exit $status:"
printf '%s\n' "$out" | tail -3
echo "container memory limit: 1 failed"
exit 1
