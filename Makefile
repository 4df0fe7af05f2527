# slotprove build. `make` builds build/slotprove, build/synthd, build/gpud.
# `make deps` installs what is missing (apt + npm, idempotent), `make test`
# runs the Criterion unit suite and the end-to-end pipeline tests,
# `make demo` proves the bundled circuits and verifies them with snarkjs.

CC      ?= cc
BUILD   := build
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread -MMD -MP -Icommon -Ishm
# Each process sees common/, shm/ and its own headers only, and links its own
# library with libcommon.a only: no process uses another's code by accident.
$(BUILD)/obj/synthd/%.o: CFLAGS += -Isynthd
$(BUILD)/obj/gpud/%.o: CFLAGS += -Igpud -Igpud/cpu
$(BUILD)/obj/run/%.o: CFLAGS += -Irun
$(BUILD)/obj/tests/%.o: CFLAGS += -Isynthd -Igpud -Igpud/cpu -Irun
# liburing is linked statically so the binaries also run on hosts without it.
LDLIBS  := -l:liburing.a -lbsd -lmd -ljansson -lgmp -lpthread -lm

COMMON_SRC := $(wildcard common/*.c) $(wildcard shm/*.c)
GPUD_SRC   := $(filter-out gpud/main.c,$(wildcard gpud/*.c gpud/cpu/*.c))
SYNTHD_SRC := $(filter-out synthd/main.c,$(wildcard synthd/*.c))
RUN_SRC    := $(filter-out run/main.c,$(wildcard run/*.c))
TEST_SRC   := $(wildcard tests/test_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOMMON := $(BUILD)/libcommon.a
LIBSYNTHD := $(BUILD)/libsynthd.a
LIBGPUD   := $(BUILD)/libgpud.a
LIBRUN    := $(BUILD)/librun.a
BINS    := $(BUILD)/slotprove $(BUILD)/synthd $(BUILD)/gpud

.PHONY: all deps test unit e2e edges lockouts verify demo bench bench-cpu bench-pipeline clean test-keygen test-pipeline
all: $(BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
$(LIBSYNTHD): $(call obj,$(SYNTHD_SRC))
$(LIBGPUD): $(call obj,$(GPUD_SRC))
$(LIBRUN): $(call obj,$(RUN_SRC))
$(LIBCOMMON) $(LIBSYNTHD) $(LIBGPUD) $(LIBRUN):
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/slotprove: $(call obj,run/main.c) $(LIBRUN) $(LIBCOMMON)
	$(CC) $(CFLAGS) $(call obj,run/main.c) $(LIBRUN) $(LIBCOMMON) $(GPUD_LINK) -o $@ $(LDLIBS)
$(BUILD)/synthd: $(call obj,synthd/main.c) $(LIBSYNTHD) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BUILD)/gpud: $(call obj,gpud/main.c) $(LIBGPUD) $(LIBCOMMON)
	$(CC) $(CFLAGS) $(call obj,gpud/main.c) $(LIBGPUD) $(LIBCOMMON) $(GPUD_LINK) -o $@ $(LDLIBS)

# One Criterion binary holds every tests/test_*.c.
$(BUILD)/unit: $(call obj,$(TEST_SRC)) $(LIBRUN) $(LIBSYNTHD) $(LIBGPUD) $(LIBCOMMON)
	$(CC) $(CFLAGS) $(call obj,$(TEST_SRC)) $(LIBRUN) $(LIBSYNTHD) $(LIBGPUD) $(LIBCOMMON) $(GPUD_LINK) -o $@ -lcriterion $(LDLIBS)

deps:
	@sh tests/install-deps.sh

# The field suites run a second time on the portable C multiplication
# (SLOTPROVE_NO_ADX=1), so both paths are checked against GMP; the
# BLS12-381 MSM and key check suites a second time without AVX-512 IFMA.
unit: $(BUILD)/unit
	$(BUILD)/unit -j2
	SLOTPROVE_NO_ADX=1 $(BUILD)/unit -j2 --filter 'field*/*'
	SLOTPROVE_NO_IFMA=1 $(BUILD)/unit -j2 --filter '@(msm_bls12381_g1|msm_bls12381_g2|zkey_check)/*'

e2e: $(BINS)
	@sh tests/e2e.sh

edges: $(BINS)
	@bash tests/edges.sh

faults: $(BINS)
	@sh tests/faults.sh

# clients that could lock the service out (issue 22): many waits, slow senders, stalls
lockouts: $(BINS)
	@bash tests/lockouts.sh

# slotprove verify beside snarkjs: fixtures, fresh proofs, tampered inputs
verify: $(BINS)
	@sh tests/verify.sh

# keygen: 2^16 keys of both curves proved and verified, bad arguments
test-keygen: $(BINS)
	@sh tests/keygen.sh

# the pipeline figures (serve --trace-times, status "pipeline") against each other
test-pipeline: $(BINS)
	@sh tests/pipeline.sh

test: deps all unit e2e edges lockouts verify test-keygen test-pipeline faults

demo: deps all
	@sh tests/demo.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

bench: deps all
	@sh tests/bench.sh

# Component timings on random data of any size (tests/bench_cpu.c).
$(BUILD)/bench_cpu: $(call obj,tests/bench_cpu.c) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

bench-cpu: $(BUILD)/bench_cpu
	@sh tests/bench_cpu.sh

# The daemon under load (tests/bench_pipeline.sh: PIPE_SIZES, PIPE_CURVES,
# PIPE_SYNTHDS, PIPE_SLOTS, PIPE_BACKEND, ...); tables in build/bench_pipeline.txt
# On a machine with a GPU (nvidia-smi answers) it runs the scale set
# through tests/gpu_session.sh: both curves at 2^20, 2^22 and 2^24 and a
# BLS12-381 partition with a 2^27 domain (4.2 M wires: the key is 23.5 GiB);
# GPU_PIPE overrides the set (entries CURVE/SPEC/SYNTHDS/SLOTS/PARTS).
GPU_PIPE_SCALE := bn128/20/4/6/24 bls12381/20/4/6/24 bn128/22/4/6/16 bls12381/22/4/6/16 \
                  bn128/24/3/4/10 bls12381/24/3/4/10 bls12381/27:67108865:4194304/2/2/6
bench-pipeline: $(BINS)
	@if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then \
	    GPU_SESSION=pipe GPU_PIPE="$${GPU_PIPE:-$(GPU_PIPE_SCALE)}" GPU_BIN=$(BUILD) \
	        OUT=$(BUILD)/gpu-session bash tests/gpu_session.sh; \
	else bash tests/bench_pipeline.sh; fi

# A circomlib SHA-256 circuit (BN254, 2^15) proved by slotprove, rapidsnark
# ($$RAPIDSNARK, when set) and snarkjs side by side (tests/bench_sha256.sh).
.PHONY: bench-sha256
bench-sha256: deps all
	@sh tests/bench_sha256.sh

# ---- fuzzing (clang + libFuzzer; Debian: clang, libclang-rt-14-dev) --------
# `make fuzz` builds build/fuzz/fuzz_{zkey,wtns,request,verify} from tests/fuzz/ and
# the parser sources, then runs each for FUZZ_SECONDS (default 60) seconds,
# seeded from tests/fuzz/corpus/<target>/. New corpus entries go to
# build/fuzz/corpus/<target>/, crash inputs to build/fuzz/<target>-crash-*;
# tests/fuzz/<target>.dict, when present, is the target's dictionary.
# `make fuzz-short` is the same with 10 seconds per target. Every target runs
# even if an earlier one crashes; the recipe fails if any did.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined -Wall -Wextra -Icommon -Irun
FUZZ_SRC     := common/binfile.c common/zkey.c common/wtns.c common/curve.c common/err.c common/escape.c common/limb_x86.c \
                run/request.c common/groth16.c common/groth16_json.c \
                common/bn254_groth16.c common/bls12381_groth16.c \
                common/bn254_pairing.c common/bls12381_pairing.c \
                common/bn254_g1_msm.c common/bls12381_g1_msm.c common/glv.c common/parallel.c \
                common/limb_inv.c common/fp381_ifma.c
FUZZ_TARGETS := zkey wtns request verify
FUZZ_BINS    := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-short fuzz-build
fuzz-build: $(FUZZ_BINS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC) $(wildcard common/*.h run/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRC) -o $@ -ljansson -lgmp

fuzz: $(FUZZ_BINS)
	@failed=""; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(BUILD)/fuzz/corpus/$$t; \
	    dict=""; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
	    echo "fuzz: fuzz_$$t for $(FUZZ_SECONDS) s"; \
	    $(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        -artifact_prefix=$(BUILD)/fuzz/$$t- $$dict \
	        $(BUILD)/fuzz/corpus/$$t tests/fuzz/corpus/$$t || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: FAILED:$$failed (inputs in $(BUILD)/fuzz/)"; exit 1; fi; \
	echo "fuzz: no crashes"

fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

# ---- CUDA kernels (gpud/cuda/) -------------------------------------------
# Built whenever nvcc is found (PATH or /usr/local/cuda/bin); `make NVCC=`
# builds without them. CUDA_ARCHS lists the real architectures (default
# sm_80, sm_86, sm_89, sm_90, plus PTX of the highest for newer GPUs); for
# runs on one known GPU, e.g. `make CUDA_ARCHS=90` compiles a quarter as much.
# `make test-gpu` / `make bench-gpu` run the GPU checks and benchmarks on a
# machine with a device (tests/gpu.sh runs both in one go).
ifeq ($(origin NVCC),undefined)
NVCC       := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
endif
CUDA_ARCHS ?= 80 86 89 90
CUDA_HOME  ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVCCFLAGS  := -std=c++17 -O3 -Icommon -Igpud/cuda -diag-suppress 1675 --default-stream per-thread \
              $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
              -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
CUDA_SRC   := $(wildcard gpud/cuda/*.cu)
CUDA_OBJ   := $(patsubst %.cu,$(BUILD)/cuda/%.o,$(CUDA_SRC))
LIBGPU     := $(BUILD)/libgpu.a
CUDA_LDLIBS = -L$(CUDA_HOME)/lib64 -l:libcudart_static.a -lstdc++ -ldl -lrt
GPU_BINS   := $(BUILD)/gpu_test $(BUILD)/gpu_bench

ifneq ($(NVCC),)
all: $(GPU_BINS)
# gpud gets the CUDA backend (gpud/cuda/*.c on the kernels of libgpu.a);
# build/gpud-config records whether, so switching rebuilds gpud's objects.
GPUD_CUDA_SRC := $(wildcard gpud/cuda/*.c)
$(LIBGPUD): $(call obj,$(GPUD_CUDA_SRC))
$(BUILD)/obj/gpud/%.o: CFLAGS += -DSLOTPROVE_CUDA -Igpud/cuda
$(BUILD)/obj/tests/%.o: CFLAGS += -DSLOTPROVE_CUDA -Igpud/cuda
# slotprove links the kernels too, for keygen's points on the GPU
# (run/keygen_gpu.c); serve and prove never touch the GPU themselves.
$(BUILD)/obj/run/%.o: CFLAGS += -DSLOTPROVE_CUDA_BUILT -Igpud/cuda
GPUD_LINK := $(LIBGPU) $(CUDA_LDLIBS)
$(BUILD)/gpud $(BUILD)/unit $(BUILD)/slotprove: $(LIBGPU)
GPUD_CONFIG := cuda
else
GPUD_LINK :=
GPUD_CONFIG := cpu
endif
$(shell mkdir -p $(BUILD); test "$$(cat $(BUILD)/gpud-config 2>/dev/null)" = "$(GPUD_CONFIG)" || echo $(GPUD_CONFIG) > $(BUILD)/gpud-config)
$(call obj,gpud/main.c $(GPUD_SRC) $(GPUD_CUDA_SRC) $(TEST_SRC) run/main.c $(RUN_SRC)): $(BUILD)/gpud-config

$(BUILD)/cuda/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@
-include $(wildcard $(BUILD)/cuda/gpud/cuda/*.d)

$(LIBGPU): $(CUDA_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/gpu_%: $(call obj,tests/gpu_%.c tests/gpu_data.c) $(LIBGPU) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(CUDA_LDLIBS) $(LDLIBS)

$(call obj,tests/gpu_test.c tests/gpu_bench.c tests/gpu_data.c): CFLAGS += -Igpud/cuda -Itests -I$(CUDA_HOME)/include

# the CUDA backend through the pipeline: fixtures, serve, GPU faults (needs a GPU)
.PHONY: test-gpu-prove
test-gpu-prove: $(BINS)
	@bash tests/gpu_prove.sh

.PHONY: test-gpu bench-gpu
test-gpu: $(GPU_BINS)
	$(BUILD)/gpu_test

# the kernels, then whole proofs of keygen keys on the CUDA and the CPU
# backend side by side (GPU_PROVE_LOGS, default 20 22 24: the largest key)
bench-gpu: $(GPU_BINS) $(BINS)
	$(BUILD)/gpu_bench
	@GPU_PROVE_SECTIONS=4 GPU_PROVE_LOGS="$${GPU_PROVE_LOGS:-20 22 24}" bash tests/gpu_prove.sh
