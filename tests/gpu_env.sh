# Sourced by run_tests.sh and sanitize.sh, so both decide "is there a GPU?" the same way.
# Reads CHAPTERS (chapter folders that exist). Sets:
#   GPU_CHAPTERS      the chapters that need a GPU (all but 01_cpu_serial)
#   GPU_REASON        why GPU suites cannot run here, or empty when the probe kernel ran
#   GPU_PROBE         the probe's one-line answer
#   GPU_PROBE_FAILED  1 when a device is listed but did not run the probe kernel: a failure, not a skip
GPU_CHAPTERS=""
for c in ${CHAPTERS:-}; do
  [ "$c" = 01_cpu_serial ] || GPU_CHAPTERS="$GPU_CHAPTERS $c"
done
GPU_REASON="" GPU_PROBE="" GPU_PROBE_FAILED=0
if [ ! -x build/tests/cuda_probe ]; then
  GPU_REASON="no CUDA compiler (nvcc) found, so no GPU code was built"
else
  GPU_PROBE=$(build/tests/cuda_probe 2>&1)
  case $? in
    0) ;;
    1) GPU_REASON="$GPU_PROBE (probe: build/tests/cuda_probe)" ;;
    *) GPU_REASON="the probe failed: $GPU_PROBE"; GPU_PROBE_FAILED=1 ;;
  esac
fi
