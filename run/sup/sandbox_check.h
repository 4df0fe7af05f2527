/*
 * sandbox_check.h — can witness programs be boxed on this system?
 *
 * synthd runs every witness program in a sandbox of unprivileged
 * namespaces (synthd/witness_sandbox.h) and never outside one. Whether
 * the system allows it is asked once, at start, of synthd itself
 * (`synthd --sandbox-probe`: it builds a box and checks it from inside), so
 * that serve refuses to start with --witness-program, serve without one
 * refuses input jobs, and fullprove refuses, each naming the missing
 * feature, instead of failing every job later.
 */
#ifndef SLOTPROVE_SANDBOX_CHECK_H
#define SLOTPROVE_SANDBOX_CHECK_H

#include <stddef.h>

/* Runs the sibling synthd with --sandbox-probe (at most 30 s). 0 when the
 * box works; -1 with the reason in why (len bytes, NUL-terminated). */
int witness_sandbox_check(char *why, size_t len);

#endif
