/*
 * slotprove — command-line entry point. `slotprove prove …` proves one
 * witness through the process group; see `slotprove --help`.
 */
#include <stdio.h>
#include <string.h>

#include "run.h"

#define SLOTPROVE_VERSION "0.1.0"

static void usage(FILE *f)
{
    fprintf(f,
            "slotprove %s — Groth16 prover for snarkjs/circom keys (bn128, bls12381)\n"
            "\n"
            "usage:\n"
            "  slotprove prove [options] CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json\n"
            "        prove one witness (rapidsnark-compatible); `slotprove prove --help`\n"
            "  slotprove --version\n"
            "  slotprove --help\n",
            SLOTPROVE_VERSION);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "prove") == 0)
        return cmd_prove(argc - 1, argv + 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("slotprove %s\n", SLOTPROVE_VERSION);
        return 0;
    }
    fprintf(stderr, "slotprove: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return 2;
}
