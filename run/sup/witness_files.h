/*
 * witness_files.h — the files of an input job (witness_job.h) that need no
 * core: the witness program, opened and checked once, and each input.json,
 * pinned in a sealed memfd (intake.c calls it on its threads).
 */
#ifndef SLOTPROVE_WITNESS_FILES_H
#define SLOTPROVE_WITNESS_FILES_H

#include <stddef.h>

#include "err.h"

#define WITNESS_INPUT_MAX (16u << 20) /* bytes per input.json */
#define WITNESS_PROGRAM_MAX (256u << 20) /* bytes of a program sent with a job */

/* Opens PROGRAM (a regular file), checks it is an ELF executable or a .wasm
 * (by magic) and pins it with its companions: the program as
 * witness_program_pin does, the companions as witness_companions_pin does
 * (into aux[2]). Its absolute path goes to abs_path (abs_len bytes). The
 * program's pinned descriptor (CLOEXEC), or a negative code with
 * "PROGRAM: reason" in e (nothing left open). */
int witness_program_open(const char *path, char *abs_path, size_t abs_len, int aux[2],
                         struct sp_err *e);

/* Pins the files a circom witness program reads from beside itself when it
 * runs, so that no file swapped after the submit (or the preload) reaches a
 * run: for a native program (ELF at prog_fd) aux[0] = PATH.dat (circom's
 * main.cpp opens argv[0] + ".dat"), aux[1] = -1; for a .wasm aux[0] =
 * DIR/generate_witness.js, aux[1] = DIR/witness_calculator.js (DIR the
 * .wasm's folder; generate_witness.js requires "./witness_calculator.js").
 * Each is a sealed memfd copy (witness_input_pin's way) of at most
 * WITNESS_PROGRAM_MAX bytes. abs_path is the program's absolute path. 0, or a
 * negative code with "FILE: reason" in e (aux left -1). Any thread. */
int witness_companions_pin(int prog_fd, const char *abs_path, int aux[2], struct sp_err *e);

/* Copies the input on fd (a regular file) into a new sealed memfd of at
 * most WITNESS_INPUT_MAX bytes. The memfd, or a negative code with
 * "name: reason" in e. Any thread. */
int witness_input_pin(int fd, const char *name, struct sp_err *e);

/* A witness program sent with a job (submit --zkey Z --program P): copies
 * the program on fd (a regular file of at most WITNESS_PROGRAM_MAX bytes)
 * into a sealed memfd, checks the copy is an ELF executable or a .wasm (by
 * its magic, never its name), and returns a read-only descriptor of it (no
 * writable descriptor stays open, so the kernel will exec it: fexecve). The
 * descriptor (CLOEXEC), or a negative code with "name: reason" in e. Any
 * thread. */
int witness_program_pin(int fd, const char *name, struct sp_err *e);

#endif
