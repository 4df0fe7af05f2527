# slotprove build. `make` builds build/slotprove, build/synthd, build/gpud.
# `make deps` installs what is missing (apt + npm, idempotent), `make test`
# runs the Criterion unit suite and the end-to-end pipeline tests,
# `make demo` proves the bundled circuits and verifies them with snarkjs.

CC      ?= cc
BUILD   := build
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread -MMD -MP \
           -Icommon -Ishm -Igpud -Igpud/cpu -Isynthd -Irun
# liburing is linked statically so the binaries also run on hosts without it.
LDLIBS  := -l:liburing.a -lbsd -lmd -ljansson -lgmp -lpthread -lm

COMMON_SRC := $(wildcard common/*.c) $(wildcard shm/*.c)
GPUD_SRC   := $(filter-out gpud/main.c,$(wildcard gpud/*.c gpud/cpu/*.c))
SYNTHD_SRC := $(filter-out synthd/main.c,$(wildcard synthd/*.c))
RUN_SRC    := $(filter-out run/main.c,$(wildcard run/*.c))
TEST_SRC   := $(wildcard tests/test_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCORE := $(BUILD)/libcore.a
BINS    := $(BUILD)/slotprove $(BUILD)/synthd $(BUILD)/gpud

.PHONY: all deps test unit e2e demo bench clean
all: $(BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBCORE): $(call obj,$(COMMON_SRC) $(GPUD_SRC) $(SYNTHD_SRC) $(RUN_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/slotprove: $(call obj,run/main.c) $(LIBCORE)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BUILD)/synthd: $(call obj,synthd/main.c) $(LIBCORE)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BUILD)/gpud: $(call obj,gpud/main.c) $(LIBCORE)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# One Criterion binary holds every tests/test_*.c.
$(BUILD)/unit: $(call obj,$(TEST_SRC)) $(LIBCORE)
	$(CC) $(CFLAGS) $^ -o $@ -lcriterion $(LDLIBS)

deps:
	@sh tests/install-deps.sh

unit: $(BUILD)/unit
	$(BUILD)/unit -j2

e2e: $(BINS)
	@sh tests/e2e.sh

test: deps all unit e2e

demo: deps all
	@sh tests/demo.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

bench: deps all
	@sh tests/bench.sh
