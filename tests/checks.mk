# Source checks, included by the Makefile; all three run in `make test`.
#
# make check-generated  regenerates the constant tables (common/gen_*.py:
#                       the blocks of bn254.h and bls12381.h, glv_constants.h,
#                       mont_adx.h) in a temporary copy of common/ and fails,
#                       showing the diff, if any differs from the committed one
# make regen            rewrites them in place (python3 common/gen_*.py --update)
# make check-layout     tests/check_layout.py: no include/call cycles, no arrow
#                       against the room order common -> shm -> synthd|gpud -> run
# make check-env        tests/check_env.py: every SLOTPROVE_* variable read is in
#                       the table of tests/README.md, and every row is read
GEN_PY := $(wildcard common/gen_*.py)

.PHONY: check-generated regen check-layout check-env checks
check-generated:
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	cp -p common/*.h $(GEN_PY) "$$tmp"/ && \
	for g in $(notdir $(GEN_PY)); do \
	    python3 "$$tmp/$$g" --update >/dev/null || { echo "check-generated: $$g failed"; exit 1; }; \
	done && \
	if diff -ru --exclude='*.py' --exclude='__pycache__' common "$$tmp" | grep -v '^Only in common' > "$$tmp.diff"; \
	    [ -s "$$tmp.diff" ]; then \
	    cat "$$tmp.diff"; rm -f "$$tmp.diff"; \
	    echo "check-generated: FAILED: the tables above differ from what common/gen_*.py makes (make regen rewrites them)"; exit 1; \
	fi; rm -f "$$tmp.diff"; echo "check-generated: $(words $(GEN_PY)) generators, tables up to date"

regen:
	@for g in $(GEN_PY); do python3 $$g --update || exit 1; done

check-layout:
	@python3 tests/check_layout.py

check-env:
	@python3 tests/check_env.py tests/README.md

checks: check-generated check-env check-layout
