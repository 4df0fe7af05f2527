/* proof.c — see proof.h. JSON is built with jansson and printed with indent 1,
 * as snarkjs's CLI writes it. */
#include "proof.h"

#include <gmp.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

char *limbs_to_dec(char *buf, size_t len, const uint64_t *l, size_t n)
{
    mpz_t z;
    mpz_init(z);
    mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l);
    if (mpz_sizeinbase(z, 10) + 2 <= len)
        mpz_get_str(buf, 10, z);
    else if (len)
        buf[0] = 0;
    mpz_clear(z);
    return buf;
}

static json_t *dec(const uint64_t *l, size_t n)
{
    char buf[128];
    return json_string(limbs_to_dec(buf, sizeof(buf), l, n));
}

static json_t *g1_json(const uint64_t xy[2][6], int inf, size_t limbs)
{
    if (inf)
        return json_pack("[sss]", "0", "1", "0");
    return json_pack("[oos]", dec(xy[0], limbs), dec(xy[1], limbs), "1");
}

static json_t *g2_json(const uint64_t xy[2][2][6], int inf, size_t limbs)
{
    if (inf)
        return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
    return json_pack("[[oo][oo][ss]]", dec(xy[0][0], limbs), dec(xy[0][1], limbs),
                     dec(xy[1][0], limbs), dec(xy[1][1], limbs), "1", "0");
}

json_t *proof_to_json_object(const struct groth16_proof *p)
{
    const struct curve_info *ci = curve_get(p->curve);
    size_t limbs = ci->n8q / 8;
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "pi_a", g1_json(p->a, p->a_inf, limbs));
    json_object_set_new(o, "pi_b", g2_json(p->b, p->b_inf, limbs));
    json_object_set_new(o, "pi_c", g1_json(p->c, p->c_inf, limbs));
    json_object_set_new(o, "protocol", json_string("groth16"));
    json_object_set_new(o, "curve", json_string(ci->name));
    return o;
}

char *proof_to_json(const struct groth16_proof *p)
{
    json_t *o = proof_to_json_object(p);
    if (!o)
        return NULL;
    char *s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

char *public_to_json(const uint8_t *values, uint32_t n)
{
    /* snarkjs's writer prints an empty array over two lines */
    if (n == 0)
        return strdup("[\n]");
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t l[4];
        memcpy(l, values + 32 * (size_t)i, 32);
        json_array_append_new(a, dec(l, 4));
    }
    char *s = json_dumps(a, JSON_INDENT(1));
    json_decref(a);
    return s;
}
