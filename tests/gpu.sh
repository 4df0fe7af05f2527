#!/bin/sh
# tests/gpu.sh — the whole GPU run in one go on a machine with a CUDA device:
# the device's state, the correctness checks (gpu_test: kernels against the
# CPU backend), then the benchmarks (gpu_bench). Each log goes to $OUT (or
# build/) as well as to stdout. Built binaries come from $GPU_BIN (default
# build/); sizes up to 2^$GPU_TEST_LOG (22) and 2^$GPU_BENCH_LOG (24).
# Exit status: gpu_test's (0 = all passed).
set -u
bin=${GPU_BIN:-build}
out=${OUT:-build}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm \
    --format=csv 2>&1 | tee "$out/device.txt"
"$bin/gpu_test" "${GPU_TEST_LOG:-22}" ${GPU_TEST_ONLY:-} 2>&1 | tee "$out/gpu_test.log"
rc=$(tail -1 "$out/gpu_test.log" | grep -q ' 0 failed' && echo 0 || echo 1)
"$bin/gpu_bench" "${GPU_BENCH_LOG:-24}" ${GPU_BENCH_ONLY:-} 2>&1 | tee "$out/gpu_bench.log"
exit "$rc"
