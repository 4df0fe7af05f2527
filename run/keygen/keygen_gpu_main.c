/*
 * keygen_gpu_main.c — build/slotprove-keygen-gpu, keygen's GPU helper: the
 * fixed-base multiplications of keygen's point sections on the kernels of
 * gpud/cuda/kernels/gpu_fixed_base.h, in a process of its own so that slotprove
 * does not link the CUDA runtime. Started by keygen_gpu.c only; the
 * arguments, descriptors and messages are in keygen_gpu_proto.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault_point.h"
#include "gpu_device.h"
#include "gpu_fixed_base.h"
#include "gpu_mem.h"
#include "gpu_prove.h"
#include "keygen_gpu_proto.h"

static int answer(int rc, const char *msg)
{
    static struct kg_rep r;
    memset(&r, 0, sizeof(r));
    r.rc = rc;
    snprintf(r.msg, sizeof(r.msg), "%s", msg);
    return send(KG_FD_SOCK, &r, sizeof(r), MSG_NOSIGNAL) == (ssize_t)sizeof(r) ? 0 : -1;
}

static int number(const char *s, unsigned long max, unsigned long *v)
{
    char *end;
    errno = 0;
    *v = strtoul(s, &end, 10);
    return errno || !*s || *end || *v > max ? -1 : 0;
}

int main(int argc, char **argv)
{
    struct sp_err e = { "" };
    static char desc[SP_ERR_MSG];
    int probe = argc >= 2 && strcmp(argv[1], "--probe") == 0;
    const char *curve = NULL;
    unsigned long w1 = 0, w2 = 0, max_batch = 0, gpu_mem = 0;
    for (int i = 1 + probe; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        int bad = 0;
        if (strcmp(k, "--gpu-mem") == 0)
            bad = number(v, 1ul << 50, &gpu_mem);
        else if (probe)
            bad = 1;
        else if (strcmp(k, "--curve") == 0)
            curve = v;
        else if (strcmp(k, "--w1") == 0)
            bad = number(v, 16, &w1);
        else if (strcmp(k, "--w2") == 0)
            bad = number(v, 16, &w2);
        else if (strcmp(k, "--max-batch") == 0)
            bad = number(v, 1ul << 30, &max_batch);
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "%s: unexpected argument %s %s (started by `slotprove keygen` "
                            "only)\n", KEYGEN_GPU_HELPER, k, v);
            return 2;
        }
    }
    if (probe) {
        int rc = gpu_describe(desc, sizeof(desc), &e);
        if (rc >= 0 && !gpu_mem_set_budget((size_t)gpu_mem, &e))
            rc = -ENOMEM;
        return answer(rc, rc < 0 ? e.msg : desc) < 0 ? 1 : 0;
    }
    int bn = curve && strcmp(curve, curve_get(CURVE_BN254)->name) == 0;
    if (!curve || (!bn && strcmp(curve, curve_get(CURVE_BLS12381)->name) != 0) || !w1 || !w2 ||
        !max_batch) {
        fprintf(stderr, "%s: want --curve bn128|bls12381 --w1 W --w2 W --max-batch N "
                        "(started by `slotprove keygen` only)\n", KEYGEN_GPU_HELPER);
        return 2;
    }
    struct kg_layout l = kg_layout_of(curve_get(bn ? CURVE_BN254 : CURVE_BLS12381)->n8q,
                                      (unsigned)w1, (unsigned)w2, max_batch);
    struct stat st;
    uint8_t *map = MAP_FAILED;
    if (fstat(KG_FD_MEM, &st) < 0 || (size_t)st.st_size < l.total ||
        (map = mmap(NULL, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, KG_FD_MEM, 0)) ==
            MAP_FAILED) {
        snprintf(desc, sizeof(desc), "%s: no table memory of %zu bytes at descriptor %d",
                 KEYGEN_GPU_HELPER, l.total, KG_FD_MEM);
        answer(-EINVAL, desc);
        return 2;
    }
    struct gpu_fb *g[2] = { NULL, NULL };
    int rc;
    if (!gpu_mem_set_budget((size_t)gpu_mem, &e)) {
        answer(-ENOMEM, e.msg);
        return 1;
    }
    if ((rc = gpu_fb_create(&g[0], bn ? GPU_BN254_G1 : GPU_BLS12381_G1, map + l.t1_off,
                            (unsigned)w1, max_batch, &e)) < 0 ||
        (rc = gpu_fb_create(&g[1], bn ? GPU_BN254_G2 : GPU_BLS12381_G2, map + l.t2_off,
                            (unsigned)w2, max_batch, &e)) < 0) {
        answer(rc, e.msg);
        gpu_fb_free(g[0]);
        return 1;
    }
    if (answer(0, "") < 0)
        return 1;
    struct kg_req q;
    while (recv(KG_FD_SOCK, &q, sizeof(q), 0) == (ssize_t)sizeof(q)) {
        e.msg[0] = 0;
        if (q.op != KGH_MUL || q.g2 > 1 || q.n > max_batch) {
            rc = -EINVAL;
            snprintf(e.msg, sizeof(e.msg), "%s: bad request", KEYGEN_GPU_HELPER);
        } else {
            /* The fault tests (tests/gpu_session.sh, stage keygen) lose the GPU
             * context here, with SLOTPROVE_FAULT_MATCH choosing the group
             * ("g1", "g2"), as a crashed kernel would: every later call fails too. */
            rc = 0;
            if (fault_point("keygen-gpu-trap", q.g2 ? "g2" : "g1"))
                rc = gpu_inject_fault(1, &e);
            if (rc >= 0)
                rc = gpu_fb_mul_batch(g[q.g2], map + l.out_off, map + l.k_off, q.n, &e);
        }
        if (answer(rc < 0 ? rc : 0, e.msg) < 0)
            break;
    }
    gpu_fb_free(g[0]);
    gpu_fb_free(g[1]);
    return 0;
}
