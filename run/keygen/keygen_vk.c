/* keygen_vk.c — vk.json for `slotprove keygen` (keygen_vk.h). The layout
 * follows snarkjs src/zkey_export_verificationkey.js (groth16Vk) and its CLI,
 * which prints with JSON.stringify(vKey, null, 1). */
#include "keygen_vk.h"

#include <jansson.h>

#include "proof.h"

static json_t *dec(const uint64_t *l, size_t n)
{
    char buf[128];
    return json_string(limbs_to_dec(buf, sizeof(buf), l, n));
}

static int is_zero(const uint64_t *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (l[i])
            return 0;
    return 1;
}

static json_t *g1(const uint64_t xy[2][6], size_t limbs)
{
    if (is_zero(xy[0], limbs) && is_zero(xy[1], limbs))
        return json_pack("[sss]", "0", "1", "0");
    return json_pack("[oos]", dec(xy[0], limbs), dec(xy[1], limbs), "1");
}

static json_t *g2(const uint64_t xy[2][2][6], size_t limbs)
{
    return json_pack("[[oo][oo][ss]]", dec(xy[0][0], limbs), dec(xy[0][1], limbs),
                     dec(xy[1][0], limbs), dec(xy[1][1], limbs), "1", "0");
}

char *keygen_vk_json(const struct keygen_vk *vk)
{
    const struct curve_info *ci = curve_get(vk->curve);
    size_t limbs = ci->n8q / 8;
    json_t *o = json_object(), *ic = json_array();
    if (!o || !ic) {
        json_decref(o);
        json_decref(ic);
        return NULL;
    }
    json_object_set_new(o, "protocol", json_string("groth16"));
    json_object_set_new(o, "curve", json_string(ci->name));
    json_object_set_new(o, "nPublic", json_integer(vk->n_public));
    json_object_set_new(o, "vk_alpha_1", g1(vk->alpha1, limbs));
    json_object_set_new(o, "vk_beta_2", g2(vk->beta2, limbs));
    json_object_set_new(o, "vk_gamma_2", g2(vk->gamma2, limbs));
    json_object_set_new(o, "vk_delta_2", g2(vk->delta2, limbs));
    json_t *gt = json_array();
    for (int i = 0; i < 2; i++) {
        json_t *c6 = json_array();
        for (int j = 0; j < 3; j++)
            json_array_append_new(c6, json_pack("[oo]", dec(vk->alphabeta[i][j][0], limbs),
                                                dec(vk->alphabeta[i][j][1], limbs)));
        json_array_append_new(gt, c6);
    }
    json_object_set_new(o, "vk_alphabeta_12", gt);
    for (uint64_t i = 0; i <= vk->n_public; i++)
        json_array_append_new(ic, g1(vk->ic[i], limbs));
    json_object_set_new(o, "IC", ic);
    char *s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}
