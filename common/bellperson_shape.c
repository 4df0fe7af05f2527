/* bellperson_shape.c - see bellperson_shape.h. */
#include "bellperson_shape.h"

#include <string.h>

int bp_params_match_pce(const struct bp_params *k, const struct bp_pce *p, struct sp_err *e)
{
    const uint32_t *c = k->count;
    const char *kp = k->path;
    size_t n = bp_pce_domain_size(p, NULL);
    if (c[BP_IC] != p->num_inputs)
        return sp_fail(e, SP_EMISMATCH, "%s: %u inputs, but %s has ic of %u points", p->path,
                       p->num_inputs, kp, c[BP_IC]);
    if (c[BP_L] != p->num_aux)
        return sp_fail(e, SP_EMISMATCH, "%s: %u aux wires, but %s has l of %u points", p->path,
                       p->num_aux, kp, c[BP_L]);
    if ((uint64_t)c[BP_H] + 1 != n)
        return sp_fail(e, SP_EMISMATCH,
                       "%s: %u constraints (the input rows included) need a domain of %zu, but "
                       "%s has h of %u points (domain %llu)",
                       p->path, p->num_constraints, n, kp, c[BP_H],
                       (unsigned long long)c[BP_H] + 1);
    if ((uint64_t)c[BP_A] != p->num_inputs + p->a_aux.popcount)
        return sp_fail(e, SP_EMISMATCH, "%s: %u inputs + %llu aux wires in A, but %s has a of %u "
                       "points", p->path, p->num_inputs, (unsigned long long)p->a_aux.popcount,
                       kp, c[BP_A]);
    if ((uint64_t)c[BP_B_G1] != p->b_input.popcount + p->b_aux.popcount)
        return sp_fail(e, SP_EMISMATCH, "%s: %llu inputs + %llu aux wires in B, but %s has b_g1 "
                       "of %u points", p->path, (unsigned long long)p->b_input.popcount,
                       (unsigned long long)p->b_aux.popcount, kp, c[BP_B_G1]);
    return 0;
}

int bp_key_shape(struct key_shape *zk, const struct bp_pce *p, const char *path,
                 struct sp_err *e)
{
    unsigned log_n;
    size_t n = bp_pce_domain_size(p, &log_n);
    memset(zk, 0, sizeof *zk);
    if (log_n > ZKEY_MAX_LOG_DOMAIN)
        return sp_fail(e, SP_ERANGE, "%s: a domain of 2^%u rows is above the 2^%d slotprove "
                       "proves", path, log_n, ZKEY_MAX_LOG_DOMAIN);
    zk->path = path;
    zk->curve = CURVE_BLS12381;
    zk->n_vars = p->num_inputs + p->num_aux;
    zk->n_public = p->num_inputs - 1;
    zk->domain_size = (uint32_t)n;
    zk->log_domain = log_n;
    zk->n_coefs = p->total_nnz;
    return 0;
}
