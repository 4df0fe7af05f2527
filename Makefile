# slotprove build. `make` builds build/slotprove, build/synthd, build/gpud.
# `make deps` installs what is missing (apt + npm, idempotent), `make test`
# runs the Criterion unit suite and the end-to-end pipeline tests,
# `make demo` proves the bundled circuits and verifies them with snarkjs.

.DEFAULT_GOAL := all

CC      ?= cc
BUILD   := build
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread -MMD -MP -Icommon -Ishm
# Each process sees common/, shm/ and its own headers only, and links its own
# library with libcommon.a only: no process uses another's code by accident.
$(BUILD)/obj/synthd/%.o: CFLAGS += -Isynthd
$(BUILD)/obj/gpud/%.o: CFLAGS += -Igpud -Igpud/cpu
# run/ holds rooms (run/README.md); each sees its own headers and the rooms
# below it only: lib <- sup <- serve, cli; lib <- keygen; main.c sees all.
RUN_ROOMS := lib sup serve cli keygen
$(BUILD)/obj/run/lib/%.o: CFLAGS += -Irun/lib
$(BUILD)/obj/run/sup/%.o: CFLAGS += -Irun/sup -Irun/lib
$(BUILD)/obj/run/serve/%.o: CFLAGS += -Irun/serve -Irun/sup -Irun/lib
$(BUILD)/obj/run/cli/%.o: CFLAGS += -Irun/cli -Irun/sup -Irun/lib
$(BUILD)/obj/run/keygen/%.o: CFLAGS += -Irun/keygen -Irun/lib
# the fleet (run/fleet/README.md): its own program, build/slotprove-fleet, on
# the clients' code (cli) and libpq
$(BUILD)/obj/run/fleet/%.o: CFLAGS += -Irun/fleet -Irun/cli -Irun/sup -Irun/lib $(PQ_CFLAGS)
# the schema files are embedded by .incbin (run/fleet/schema_sql.c)
$(BUILD)/obj/run/fleet/schema_sql.o: $(wildcard run/fleet/sql/*.sql)
$(BUILD)/obj/run/main.o: CFLAGS += -Irun/cli -Irun/serve -Irun/keygen -Irun/lib
# the commit for --version and slotprove_build_info (run/lib/version.h):
# build/commit.h is rewritten only when the commit changes
COMMIT := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
COMMIT_H := $(shell printf '\043define SLOTPROVE_COMMIT "%s"' '$(COMMIT)')
$(shell mkdir -p $(BUILD) && echo '$(COMMIT_H)' | cmp -s - $(BUILD)/commit.h || echo '$(COMMIT_H)' > $(BUILD)/commit.h)
$(BUILD)/obj/run/lib/version.o: CFLAGS += -I$(BUILD)
$(BUILD)/obj/tests/%.o: CFLAGS += -Isynthd -Igpud -Igpud/cpu $(addprefix -Irun/,$(RUN_ROOMS) fleet)
# liburing is linked statically so the binaries also run on hosts without it.
LDLIBS  := -l:liburing.a -lbsd -lmd -ljansson -lgmp -lpthread -lm
# The fleet (run/fleet/) talks to PostgreSQL through libpq (Debian: libpq-dev);
# only build/slotprove-fleet links it (run/fleet/fleet_exec.h says why).
PQ_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
# serve's service parts: --config (libinih), --metrics (libmicrohttpd), systemd (libsystemd)
RUN_LDLIBS := -linih -lmicrohttpd -lsystemd

COMMON_SRC := $(wildcard common/*.c) $(wildcard shm/*.c)
GPUD_SRC   := $(filter-out gpud/main.c,$(wildcard gpud/*.c gpud/cpu/*.c))
SYNTHD_SRC := $(filter-out synthd/main.c,$(wildcard synthd/*.c))
# keygen's GPU helper is a program of its own (build/slotprove-keygen-gpu)
KEYGEN_GPU_MAIN := run/keygen/keygen_gpu_main.c
RUN_SRC    := $(filter-out $(KEYGEN_GPU_MAIN),$(foreach r,$(RUN_ROOMS),$(wildcard run/$(r)/*.c)))
FLEET_SRC  := $(filter-out run/fleet/main.c,$(wildcard run/fleet/*.c))
TEST_SRC   := $(wildcard tests/test_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOMMON := $(BUILD)/libcommon.a
LIBSYNTHD := $(BUILD)/libsynthd.a
LIBGPUD   := $(BUILD)/libgpud.a
LIBRUN    := $(BUILD)/librun.a
LIBFLEET  := $(BUILD)/libfleet.a
BINS    := $(BUILD)/slotprove $(BUILD)/synthd $(BUILD)/gpud $(BUILD)/slotprove-fleet

.PHONY: all deps test unit e2e edges lockouts verify demo service install bench bench-cpu bench-pipeline bench-synth clean test-keygen test-pipeline test-bellperson test-fleet test-witness test-http test-own-circuit test-sandbox
all: $(BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
$(LIBSYNTHD): $(call obj,$(SYNTHD_SRC))
$(LIBGPUD): $(call obj,$(GPUD_SRC))
$(LIBRUN): $(call obj,$(RUN_SRC))
$(LIBFLEET): $(call obj,$(FLEET_SRC))
$(LIBCOMMON) $(LIBSYNTHD) $(LIBGPUD) $(LIBRUN) $(LIBFLEET):
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/slotprove: $(call obj,run/main.c) $(LIBRUN) $(LIBCOMMON)
	$(CC) $(CFLAGS) $(call obj,run/main.c) $(LIBRUN) $(LIBCOMMON) -o $@ $(RUN_LDLIBS) $(LDLIBS)
$(BUILD)/slotprove-fleet: $(call obj,run/fleet/main.c) $(LIBFLEET) $(LIBRUN) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(RUN_LDLIBS) $(LDLIBS) -lpq
$(BUILD)/synthd: $(call obj,synthd/main.c) $(LIBSYNTHD) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BUILD)/gpud: $(call obj,gpud/main.c) $(LIBGPUD) $(LIBCOMMON)
	$(CC) $(CFLAGS) $(call obj,gpud/main.c) $(LIBGPUD) $(LIBCOMMON) $(GPUD_LINK) -o $@ $(LDLIBS)

# One Criterion binary holds every tests/test_*.c.
$(BUILD)/unit: $(call obj,$(TEST_SRC)) $(LIBRUN) $(LIBSYNTHD) $(LIBGPUD) $(LIBCOMMON)
	$(CC) $(CFLAGS) $(call obj,$(TEST_SRC)) $(LIBRUN) $(LIBSYNTHD) $(LIBGPUD) $(LIBCOMMON) $(GPUD_LINK) -o $@ -lcriterion $(RUN_LDLIBS) $(LDLIBS)

deps:
	@sh tests/install-deps.sh

# The field and synthesis suites run a second time on the portable C
# multiplication (SLOTPROVE_NO_ADX=1), so both paths are checked against GMP
# and the naive loop; the
# MSM (G1 and G2 of both curves) and key check suites a second time
# without AVX-512 IFMA.
unit: $(BUILD)/unit
	$(BUILD)/unit -j2
	SLOTPROVE_NO_ADX=1 $(BUILD)/unit -j2 --filter '@(field*|synth)/*'
	SLOTPROVE_NO_IFMA=1 $(BUILD)/unit -j2 --filter '@(msm_bn254_g1|msm_bn254_g2|msm_bls12381_g1|msm_bls12381_g2|zkey_check)/*'

e2e: $(BINS)
	@sh tests/e2e.sh

edges: $(BINS)
	@bash tests/edges.sh

faults: $(BINS)
	@sh tests/faults.sh

# issue 22: serve with no arguments, --config, --metrics, systemd (tests/service.sh)
service: $(BINS)
	@bash tests/service.sh

# clients that could lock the service out (issue 22): many waits, slow senders, stalls,
# a synthd stuck in a hung FUSE read (tests/stuck_fuse.c, libfuse3)
lockouts: $(BINS)
	@bash tests/lockouts.sh

# slotprove verify beside snarkjs: fixtures, fresh proofs, tampered inputs
verify: $(BINS)
	@sh tests/verify.sh

# keygen: 2^16 keys of both curves proved and verified, bad arguments
test-keygen: $(BINS)
	@sh tests/keygen.sh

# Filecoin's formats: keygen --format bellperson, prove --params/--pce, verify --bellperson
test-bellperson: $(BINS)
	@sh tests/bellperson.sh

# the pipeline figures (serve --trace-times, status "pipeline") against each other
test-pipeline: $(BINS)
	@sh tests/pipeline.sh

# witness programs: circom --c and --wasm programs built here, fullprove, failures, the daemon
test-witness: $(BINS)
	@sh tests/witness.sh

# serve --http: proverServer's routes with curl, tokens, the body limit, slow clients, 200 jobs
test-http: $(BINS)
	@sh tests/http.sh

# the top README's "Your own circuit" block, run as it stands (tests/own_circuit.sh)
test-own-circuit: $(BINS)
	@sh tests/own_circuit.sh

# the witness-program sandbox: hostile programs of the tests' own (tests/sandbox.sh)
test-sandbox: $(BINS)
	@sh tests/sandbox.sh

# check-layout last: it names the cycles and arrows still to cut (issue 17)
test: deps check-generated check-env all unit e2e edges service lockouts verify test-keygen test-bellperson test-pipeline test-witness test-http test-own-circuit test-sandbox faults test-fleet check-layout

include tests/checks.mk

# the fleet on a real PostgreSQL: three serve + fleetd pairs, faults (tests/fleet.sh)
test-fleet: $(BINS)
	@bash tests/fleet.sh

demo: deps all
	@sh tests/demo.sh

# make install [PREFIX=/usr/local] [DESTDIR=]: the programs in
# $(PREFIX)/libexec/slotprove (they find each other there), slotprove linked
# from $(PREFIX)/bin, the systemd units in $(PREFIX)/lib/systemd/system with
# the user (sysusers.d) and the socket's directory (tmpfiles.d) they need,
# an example serve.conf (also as $(SYSCONFDIR)/slotprove/serve.conf when
# there is none), and README.md with every README it links, at the same
# relative paths under $(DOCDIR). Without DESTDIR it also creates the user
# slotprove (systemd-sysusers). run/serve/README.md, "systemd".
PREFIX     ?= /usr/local
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
LIBEXECDIR := $(PREFIX)/libexec/slotprove
UNITDIR    := $(PREFIX)/lib/systemd/system
DOCDIR     := $(PREFIX)/share/doc/slotprove
# the top README's relative links to .md files, and run/serve's (the units name it)
DOCS       := README.md run/serve/README.md $(shell grep -o '](\([^):#]*\.md\)' README.md | sed 's/^](//; s/)$$//' | sort -u)
install: $(BINS)
	install -d $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR) \
	    $(DESTDIR)$(PREFIX)/lib/sysusers.d $(DESTDIR)$(PREFIX)/lib/tmpfiles.d $(DESTDIR)$(SYSCONFDIR)/slotprove
	install -m 0755 $(BINS) $(wildcard $(BUILD)/slotprove-keygen-gpu) $(DESTDIR)$(LIBEXECDIR)/
	ln -sf ../libexec/slotprove/slotprove $(DESTDIR)$(PREFIX)/bin/slotprove
	sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    -e 's|@DOCDIR@|$(DOCDIR)|g' dist/slotprove.service.in > $(DESTDIR)$(UNITDIR)/slotprove.service
	install -m 0644 dist/slotprove.socket $(DESTDIR)$(UNITDIR)/slotprove.socket
	install -m 0644 dist/slotprove.sysusers $(DESTDIR)$(PREFIX)/lib/sysusers.d/slotprove.conf
	install -m 0644 dist/slotprove.tmpfiles $(DESTDIR)$(PREFIX)/lib/tmpfiles.d/slotprove.conf
	install -m 0644 dist/serve.conf $(DESTDIR)$(DOCDIR)/serve.conf.example
	test -e $(DESTDIR)$(SYSCONFDIR)/slotprove/serve.conf || install -m 0644 dist/serve.conf $(DESTDIR)$(SYSCONFDIR)/slotprove/serve.conf
	for f in $(DOCS); do install -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/$$f || exit 1; done
	if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then \
	    systemd-sysusers $(PREFIX)/lib/sysusers.d/slotprove.conf && \
	    { ! command -v systemd-tmpfiles >/dev/null || systemd-tmpfiles --create $(PREFIX)/lib/tmpfiles.d/slotprove.conf; }; fi

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# whole proofs (tests/bench.sh), then inputs to proof (tests/bench_witness.sh:
# fullprove vs snarkjs fullprove vs the rapidsnark workflow, RAPIDSNARK=prover)
bench: deps all
	@sh tests/bench.sh
	@sh tests/bench_witness.sh

# Component timings on random data of any size (tests/bench_cpu.c).
$(BUILD)/bench_cpu: $(call obj,tests/bench_cpu.c) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

bench-cpu: $(BUILD)/bench_cpu
	@sh tests/bench_cpu.sh

# synthd's hot path alone (tests/bench_synth.c, .sh): SYNTH_SIZES, SYNTH_CURVES,
# SLOTPROVE_OLD (a git revision, tree or bench_synth binary to compare with).
$(BUILD)/bench_synth: $(call obj,tests/bench_synth.c) $(LIBSYNTHD) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

bench-synth: $(BUILD)/bench_synth $(BINS)
	@BIN=$(BUILD) bash tests/bench_synth.sh

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

# Inputs to proof: fullprove (native, wasm) against snarkjs groth16 fullprove,
# and the witness step alone (tests/bench_witness.sh)
.PHONY: bench-witness
bench-witness: deps all
	@sh tests/bench_witness.sh

# A circomlib SHA-256 circuit (BN254, 2^15) proved by slotprove, rapidsnark
# ($$RAPIDSNARK, when set) and snarkjs side by side (tests/bench_sha256.sh).
.PHONY: bench-sha256
bench-sha256: deps all
	@sh tests/bench_sha256.sh

# The same over a 64-byte message: two SHA-256 blocks, about 62.5k
# constraints, domain 2^16 (its 2^16 powers of tau: about 40 CPU minutes
# once, or BENCH_PTAU=FILE).
.PHONY: bench-sha256x2
bench-sha256x2: deps all
	@BENCH_SHA_BLOCKS=2 sh tests/bench_sha256.sh

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
                -fno-sanitize-recover=undefined -Wall -Wextra -Icommon -Irun/lib -Isynthd
FUZZ_SRC     := common/binfile.c common/zkey.c common/key_shape.c common/wtns.c common/curve.c common/err.c common/escape.c common/limb_x86.c \
                run/lib/request.c common/groth16.c common/groth16_json.c \
                common/bn254_groth16.c common/bls12381_groth16.c \
                common/bn254_pairing.c common/bls12381_pairing.c \
                common/bn254_g1_msm.c common/bls12381_g1_msm.c common/glv.c common/parallel.c \
                common/limb_inv.c common/ifma.c common/fp381_ifma.c common/fp254_ifma.c
# sources only one target needs (FUZZ_SRC_<target>), so the others build as before
FUZZ_SRC_bellperson := common/bls12381_zcash.c common/bellperson_params.c common/bellperson_pce.c \
                common/bellperson_proof.c synthd/pce_synth.c
FUZZ_TARGETS := zkey wtns request verify bellperson
FUZZ_BINS    := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-short fuzz-build
fuzz-build: $(FUZZ_BINS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC) $(FUZZ_SRC_bellperson) $(wildcard common/*.h run/lib/*.h synthd/pce_synth.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_SRC) $(FUZZ_SRC_$*) -o $@ -ljansson -lgmp

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

# ---- CUDA kernels (gpud/cuda/kernels/) -------------------------------------------
# Built when nvcc is found (PATH or /usr/local/cuda/bin) AND there is an
# architecture to build for: CUDA_ARCHS defaults to the GPUs this machine's
# `nvidia-smi --query-gpu=compute_cap` shows (9.0 -> 90), so with no GPU
# visible `make` builds no kernels at all (gpud CPU-only, as with `make NVCC=`).
# To build for another machine's GPU, name its architectures:
#   make CUDA_ARCHS=90            (H100/H200)     make CUDA_ARCHS="80 86 89 90"
# (PTX of the highest is added for newer GPUs). `make NVCC=` never builds them.
# `make test-gpu` / `make bench-gpu` run the GPU checks and benchmarks on a
# machine with a device (tests/gpu.sh runs both in one go).
ifeq ($(origin NVCC),undefined)
NVCC       := $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
endif
ifeq ($(origin CUDA_ARCHS),undefined)
ifneq ($(NVCC),)
CUDA_ARCHS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' | grep -E '^[0-9]+$$' | sort -un)
endif
endif
ifeq ($(strip $(CUDA_ARCHS)),)
NVCC       :=
endif
CUDA_HOME  ?= $(patsubst %/bin/nvcc,%,$(NVCC))
NVCCFLAGS  := -std=c++17 -O3 -Icommon -Igpud/cuda/kernels -diag-suppress 1675 --default-stream per-thread \
              $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
              -gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
CUDA_SRC   := $(wildcard gpud/cuda/kernels/*.cu)
CUDA_OBJ   := $(patsubst %.cu,$(BUILD)/cuda/%.o,$(CUDA_SRC))
LIBGPU     := $(BUILD)/libgpu.a
CUDA_LDLIBS = -L$(CUDA_HOME)/lib64 -l:libcudart_static.a -lstdc++ -ldl -lrt
GPU_BINS   := $(BUILD)/gpu_test $(BUILD)/gpu_bench

ifneq ($(NVCC),)
all: $(GPU_BINS)
# gpud gets the CUDA backend (gpud/cuda/*.c on the kernels of libgpu.a,
# gpud/cuda/kernels/);
# build/gpud-config records whether, so switching rebuilds gpud's objects.
GPUD_CUDA_SRC := $(wildcard gpud/cuda/*.c)
$(LIBGPUD): $(call obj,$(GPUD_CUDA_SRC))
$(BUILD)/obj/gpud/%.o: CFLAGS += -DSLOTPROVE_CUDA -Igpud/cuda -Igpud/cuda/kernels
$(BUILD)/obj/tests/%.o: CFLAGS += -DSLOTPROVE_CUDA -Igpud/cuda -Igpud/cuda/kernels
# slotprove never links the kernels: it only knows that this build has
# them (--backend cuda is accepted). keygen's points on the GPU go through
# the helper build/slotprove-keygen-gpu (run/keygen/keygen_gpu_main.c),
# which links them like gpud does.
$(BUILD)/obj/run/%.o: CFLAGS += -DSLOTPROVE_CUDA_BUILT
$(call obj,$(KEYGEN_GPU_MAIN)): CFLAGS += -Igpud/cuda/kernels
GPUD_LINK := $(LIBGPU) $(CUDA_LDLIBS)
$(BUILD)/gpud $(BUILD)/unit: $(LIBGPU)
all: $(BUILD)/slotprove-keygen-gpu
test-keygen test-gpu-prove bench-gpu bench-pipeline: $(BUILD)/slotprove-keygen-gpu
$(BUILD)/slotprove-keygen-gpu: $(call obj,$(KEYGEN_GPU_MAIN)) $(LIBGPU) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(CUDA_LDLIBS) $(LDLIBS)
GPUD_CONFIG := cuda $(CUDA_ARCHS)
$(CUDA_OBJ): $(BUILD)/gpud-config
else
GPUD_LINK :=
GPUD_CONFIG := cpu
endif
$(shell mkdir -p $(BUILD); test "$$(cat $(BUILD)/gpud-config 2>/dev/null)" = "$(GPUD_CONFIG)" || echo $(GPUD_CONFIG) > $(BUILD)/gpud-config)
$(call obj,gpud/main.c $(GPUD_SRC) $(GPUD_CUDA_SRC) $(TEST_SRC) run/main.c $(RUN_SRC) $(KEYGEN_GPU_MAIN)): $(BUILD)/gpud-config

$(BUILD)/cuda/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@
-include $(wildcard $(BUILD)/cuda/gpud/cuda/kernels/*.d)

$(LIBGPU): $(CUDA_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/gpu_%: $(call obj,tests/gpu_%.c tests/gpu_data.c) $(LIBGPU) $(LIBCOMMON)
	$(CC) $(CFLAGS) $^ -o $@ $(CUDA_LDLIBS) $(LDLIBS)

$(call obj,tests/gpu_test.c tests/gpu_bench.c tests/gpu_data.c): CFLAGS += -Igpud/cuda/kernels -Itests -I$(CUDA_HOME)/include

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
