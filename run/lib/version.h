/*
 * version.h — what this build is: the release (SLOTPROVE_VERSION) and the
 * git commit it was built from (`git describe --always --dirty`, written
 * into build/commit.h by the Makefile; "unknown" outside a git checkout).
 * `slotprove --version` prints both; `serve --metrics` exposes them as
 * slotprove_build_info{version,commit}; `status` reports them.
 */
#ifndef SLOTPROVE_VERSION_H
#define SLOTPROVE_VERSION_H

#define SLOTPROVE_VERSION "0.1.0"

/* The commit, e.g. "24b78d0a1c2e" or "24b78d0a1c2e-dirty": [0-9a-z-]. */
extern const char slotprove_commit[];

#endif
