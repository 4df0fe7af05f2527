/*
 * prove_bellperson.c - `slotprove prove --params P.params --pce C.pce
 * [--threads N] [-q] [--no-subgroup-check] [--json PROOF.json PUBLIC.json]
 * WITNESS... OUT`: proves one job of bellperson partitions (one witness
 * each, in order) and writes their 192-byte proofs concatenated to OUT.
 *
 * The supervisor side checks the arguments and execs the prover's own
 * process, gpud, in its one-shot mode (gpud/cpu/bellperson_main.c): the
 * proving (CPU backend) happens where the points live, and this process
 * never touches them. Serving these keys through the slot pipeline (serve
 * --key NAME=P.params:C.pce) is not built yet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "sibling.h"
#include "prove_bellperson.h"

int bellperson_wanted(int argc, char **argv, const char *flag)
{
    size_t n = strlen(flag);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strncmp(argv[i], flag, n) == 0 && (argv[i][n] == 0 || argv[i][n] == '='))
            return 1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slotprove prove --params P.params --pce C.pce [options] WITNESS.wtns... OUT\n"
            "\n"
            "Proves bellperson partitions (Filecoin's Groth16 over BLS12-381): P.params is\n"
            "bellperson's parameter file, C.pce cuzk's pre-compiled constraint file for the\n"
            "same circuit, each WITNESS a .wtns of one partition (BLS12-381's r, nWitness =\n"
            "inputs + aux, wire 0 = 1, the inputs then the aux wires). OUT receives one\n"
            "192-byte proof per witness, in order (compressed A || B || C, as bellperson's\n"
            "Proof::write). Every point of P.params is checked (on the curve, in the\n"
            "subgroup) when it is loaded, and every proof against P.params's own vk before\n"
            "OUT is written.\n"
            "\n"
            "options:\n"
            "  --threads N             worker threads, 0..1024 (default 0: all CPUs)\n"
            "  --backend auto|cpu      the CPU backend (the only one for these keys so far)\n"
            "  --json PROOF PUBLIC     also write snarkjs's proof.json and public.json (one\n"
            "                          witness): `snarkjs groth16 verify` accepts them with\n"
            "                          the same key's vk.json\n"
            "  --no-subgroup-check     skip the subgroup tests at load (on-curve checks stay;\n"
            "                          for a file already checked once)\n"
            "  -q, --quiet             no progress on stderr\n"
            "  -h, --help              this text\n"
            "\n"
            "The CPU backend proves (gpud's one-shot mode). Exit status: 0 proofs written,\n"
            "1 bad input or a failed proof (nothing written), 2 usage error.\n");
}

int cmd_prove_bellperson(int argc, char **argv)
{
    const char *params = NULL, *pce = NULL, *threads = NULL, *jp = NULL, *jq = NULL;
    int quiet = 0, nosub = 0, i;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (strcmp(a, "--params") == 0 && more)
            params = argv[++i];
        else if (strcmp(a, "--pce") == 0 && more)
            pce = argv[++i];
        else if (strcmp(a, "--threads") == 0 && more)
            threads = argv[++i];
        else if (strcmp(a, "--backend") == 0 && more) {
            const char *b = argv[++i];
            if (strcmp(b, "cpu") != 0 && strcmp(b, "auto") != 0) {
                fprintf(stderr, "slotprove prove: --backend %s: bellperson keys are proved on "
                                "the CPU backend only so far (auto or cpu)\n", b);
                return 2;
            }
        }
        else if (strcmp(a, "--json") == 0 && i + 2 < argc)
            jp = argv[i + 1], jq = argv[i + 2], i += 2;
        else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
            quiet = 1;
        else if (strcmp(a, "--no-subgroup-check") == 0)
            nosub = 1;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else {
            fprintf(stderr, "slotprove prove: unknown or incomplete option %s\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!params || !pce || argc - i < 2) {
        fprintf(stderr, "slotprove prove: --params, --pce, a witness and OUT are required\n\n");
        usage(stderr);
        return 2;
    }
    unsigned t = 0;
    if (threads && parse_count(threads, 0, 1024, &t) < 0) {
        fprintf(stderr, "slotprove prove: --threads \"%s\": want 0..1024\n", threads);
        return 2;
    }
    if (jp && argc - i != 2) {
        fprintf(stderr, "slotprove prove: --json takes one witness\n");
        return 2;
    }
    const char *out = argv[argc - 1];
    for (int k = i; k < argc - 1; k++)
        if (strcmp(argv[k], out) == 0 || strcmp(argv[k], params) == 0 || strcmp(out, params) == 0 ||
            strcmp(out, pce) == 0) {
            fprintf(stderr, "slotprove prove: OUT %s is also an input\n", out);
            return 2;
        }

    char exe[4096], tb[16];
    int rc = sibling_path(exe, sizeof exe, "gpud");
    if (rc < 0) {
        fprintf(stderr, "slotprove prove: cannot locate gpud: %s\n", strerror(-rc));
        return 1;
    }
    snprintf(tb, sizeof tb, "%u", t);
    char **av = calloc((size_t)argc + 16, sizeof(char *));
    if (!av)
        return 1;
    int n = 0;
    av[n++] = "gpud";
    av[n++] = "--bellperson-prove";
    av[n++] = "--threads";
    av[n++] = tb;
    if (quiet)
        av[n++] = "--quiet";
    if (nosub)
        av[n++] = "--no-subgroup-check";
    if (jp) {
        av[n++] = "--json";
        av[n++] = (char *)jp;
        av[n++] = (char *)jq;
    }
    av[n++] = (char *)params;
    av[n++] = (char *)pce;
    av[n++] = (char *)out;
    for (int k = i; k < argc - 1; k++)
        av[n++] = argv[k];
    av[n] = NULL;
    execv(exe, av);
    fprintf(stderr, "slotprove prove: exec %s: %s\n", exe, strerror(errno));
    free(av);
    return 1;
}
