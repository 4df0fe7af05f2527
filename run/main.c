/*
 * slotprove — command-line entry point. `slotprove prove …` proves one
 * witness through the process group; see `slotprove --help`.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "keygen.h"
#include "serve.h"
#include "fleet_exec.h"
#include "version.h"

static void usage(FILE *f)
{
    fprintf(f,
            "slotprove %s — Groth16 prover for snarkjs/circom keys (bn128, bls12381)\n"
            "\n"
            "usage:\n"
            "  slotprove prove [options] CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json\n"
            "        prove one witness (rapidsnark-compatible)\n"
            "  slotprove fullprove [options] INPUT.json PROGRAM CIRCUIT.zkey PROOF.json PUBLIC.json\n"
            "        witness program (circom --c or --wasm) and proof in one (snarkjs's order)\n"
            "  slotprove fullprove --params P.params --pce C.pce [options] INPUT PROGRAM OUT\n"
            "        the same for a bellperson key (192-byte proof to OUT)\n"
            "  slotprove verify VERIFICATION_KEY.json PUBLIC.json PROOF.json\n"
            "        verify a proof (snarkjs groth16 verify; OK and exit 0, or the reason)\n"
            "  slotprove serve [--socket PATH] [options]\n"
            "        run the proving daemon (supervisor, synthds, gpud)\n"
            "  slotprove submit [--socket PATH] (--key NAME | --zkey PATH) --witness W.wtns...\n"
            "                   [--wait --proof OUT.json --public OUT.json] [--bellperson OUT.bin]\n"
            "  slotprove submit [--socket PATH] (--key NAME | --zkey PATH [--program PROGRAM])\n"
            "                   --input IN.json... [--wait --proof OUT.json --public OUT.json]\n"
            "                   [--bellperson OUT.bin]\n"
            "        submit a job (one proof per witness or input, at most 64) to a running\n"
            "        daemon; --input: the daemon runs the key's witness program (serve\n"
            "        --witness-program NAME=PROGRAM, or --program with --zkey)\n"
            "  slotprove wait [--socket PATH] [--proof OUT.json --public OUT.json] JOB\n"
            "  slotprove cancel [--socket PATH] JOB\n"
            "  slotprove status [--socket PATH] [--json]\n"
            "  slotprove keygen --curve bn128|bls12381 --constraints N --out DIR [options]\n"
            "        INSECURE, FOR TESTING ONLY: a synthetic test key, witness and vk.json\n"
            "  slotprove fleet init --db CONNINFO\n"
            "  slotprove fleetd --db CONNINFO [--socket PATH] [--host-id ID] [options]\n"
            "        a fleet of hosts on PostgreSQL; submit, wait, cancel and status take\n"
            "        --db CONNINFO instead of --socket (run/fleet/README.md)\n"
            "  --socket defaults to $SLOTPROVE_SOCKET, else /run/slotprove/slotprove.sock.\n"
            "  Each command takes --help.\n"
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
    /* fleet: the command also exists as a client of the fleet, taken with --db
     * CONNINFO instead of --socket; then slotprove-fleet runs it (fleet_exec.h) */
    static const struct { const char *name; int (*fn)(int, char **); int fleet; } cmds[] = {
        { "prove", cmd_prove, 0 }, { "fullprove", cmd_fullprove, 0 }, { "serve", cmd_serve, 0 },
        { "submit", cmd_submit, 1 }, { "wait", cmd_wait, 1 }, { "cancel", cmd_cancel, 1 },
        { "status", cmd_status, 1 }, { "verify", cmd_verify, 0 }, { "keygen", cmd_keygen, 0 },
        { "fleet", fleet_exec, 0 }, { "fleetd", fleet_exec, 0 },
    };
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        if (strcmp(argv[1], cmds[i].name) != 0)
            continue;
        if (cmds[i].fleet && fleet_wants_db(argc - 1, argv + 1))
            return fleet_exec(argc - 1, argv + 1);
        return cmds[i].fn(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("slotprove %s (commit %s)\n", SLOTPROVE_VERSION, slotprove_commit);
        return 0;
    }
    fprintf(stderr, "slotprove: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return 2;
}
