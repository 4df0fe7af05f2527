/*
 * witness_program.h — a circuit's witness program, run by synthd as its own
 * contained child: input.json in, .wtns out.
 *
 * Two kinds, told apart by content (never by file name):
 *   - native: an ELF executable built from `circom --c` (circuit_cpp/'s
 *     Makefile). It is run as `PROGRAM INPUT WTNS` with argv[0] its own path,
 *     because circom's main.cpp loads argv[0] + ".dat" (the circuit's data
 *     file must stay beside it).
 *   - wasm: the circuit's `.wasm` from `circom --wasm` (magic "\0asm"), run as
 *     `node DIR/generate_witness.js WASM INPUT WTNS`, with circom's
 *     generate_witness.js and witness_calculator.js in DIR, the .wasm's own
 *     folder. node (from $SLOTPROVE_NODE, else PATH) is then a run-time
 *     dependency of that key only.
 * INPUT and WTNS are /proc/self/fd/N paths of memfds: the program reads the
 * input the supervisor pinned at submit and writes the witness into memory
 * only synthd holds, never a named temporary file another process could swap.
 * The files it reads from beside itself come pinned too (sealed memfds,
 * witness_files.h) and are named to it only inside a private directory that
 * synthd makes for the run (mkdtemp: mode 0700, the daemon's user) and
 * removes after: for a native program DIR/NAME.dat is a symbolic link to
 * /proc/self/fd/6, the pinned .dat (argv[0] = DIR/NAME: main.cpp opens
 * argv[0] + ".dat"); for a .wasm, DIR holds copies of the pinned
 * generate_witness.js and witness_calculator.js (node resolves a script's
 * real path, so a link to a memfd would not load). The directory is
 * $TMPDIR (else /tmp)/slotprove-witness-PID-XXXXXX, PID synthd's own: one
 * left behind by a synthd that was killed mid-run is removed by the next
 * synthd's start (witness_private_dirs_sweep).
 *
 * Containment: the sandbox of witness_sandbox.h (namespaces, a read-only
 * root, a process limit, the tree's memory summed); inside it the child gets its own process group, PR_SET_PDEATHSIG
 * (SIGKILL: a killed synthd takes its program along), stdin /dev/null,
 * stdout and stderr on one pipe synthd reads (the last WITNESS_LOG_TAIL bytes
 * are kept for the message), no other descriptor but input, output (and the
 * .wasm), and rlimits: memory (RLIMIT_AS for native programs; RLIMIT_DATA
 * for node, because V8 reserves tens of GiB of address space for wasm guard
 * regions that are never backed), CPU seconds (RLIMIT_CPU), the output's
 * size (RLIMIT_FSIZE: the key's witness size plus 4 KiB), no core files.
 * A wall-clock deadline kills the whole group with SIGKILL.
 */
#ifndef SLOTPROVE_WITNESS_PROGRAM_H
#define SLOTPROVE_WITNESS_PROGRAM_H

#include <stdint.h>

#include "err.h"

#define WITNESS_LOG_TAIL 4096

/* Defaults of serve/fullprove's --witness-mem, --witness-cpu, --witness-time. */
#define WITNESS_MEM_DEFAULT (8ull << 30) /* bytes */
#define WITNESS_CPU_DEFAULT 3600u        /* CPU seconds */
#define WITNESS_WALL_DEFAULT 3600u       /* seconds */

/* The limits travel from the supervisor to synthd as its arguments
 * --witness-mem BYTES, --witness-cpu S, --witness-time S (shm/child.h). */
struct witness_limits {
    uint64_t mem_bytes;
    uint32_t cpu_s, wall_s;
};

enum witness_kind { WITNESS_NATIVE = 1, WITNESS_WASM };

/* The limits from synthd's arguments (bytes, s, s), each 0 meaning its
 * default above. */
void witness_limits_init(struct witness_limits *l, uint64_t mem_bytes, unsigned cpu_s,
                         unsigned wall_s);

/* Tells the kind from the first 4 bytes of prog_fd ("\x7f" "ELF" or "\0asm").
 * 0, or -SP_EUNSUPPORTED ("prog: not a witness program (neither an ELF
 * executable nor a .wasm)"), or -errno, with "name: reason" in e. */
int witness_program_kind(int prog_fd, const char *prog_path, enum witness_kind *kind,
                         struct sp_err *e);

/* Runs the program at prog_path (open as prog_fd; prog_path names it in
 * messages and gives argv[0]'s last component) with its naux pinned
 * companions aux (native: 1, the .dat; wasm: 2, generate_witness.js then
 * witness_calculator.js) on the input (input_fd,
 * read from offset 0 through its own path) under the limits, allowing the
 * output at most max_wtns_bytes. On success *wtns_fd is a new memfd (CLOEXEC)
 * holding what the program wrote (unchecked: the caller checks it as any
 * .wtns). A failure is the input's: -SP_EFORMAT with "INPUT: the witness
 * program failed: <its message> (exit N | killed by signal S | past its
 * CPU limit of N s | past its wall-clock limit of N s | …)", where the message
 * is circom's error line if it printed one, else its last line of output.
 * -errno (and a message) when the program could not be started. -EFBIG
 * (with that message) when the program was stopped at the output limit:
 * *wtns_fd then holds the max_wtns_bytes it wrote (witness_mismatch.h
 * tells what they say). */
int witness_program_run(int prog_fd, const char *prog_path, const int *aux, int naux,
                        int input_fd, const char *input_name,
                        const struct witness_limits *l, uint64_t max_wtns_bytes, int *wtns_fd,
                        struct sp_err *e);

/* Removes the private directories of synthds that no longer run (a name
 * slotprove-witness-PID-* in $TMPDIR or /tmp whose PID does not exist, a
 * directory of this user): what a SIGKILL mid-run left. Called at synthd's
 * start. */
void witness_private_dirs_sweep(void);

#endif
