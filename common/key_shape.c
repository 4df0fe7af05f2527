/* key_shape.c — see key_shape.h. */
#include "key_shape.h"

void key_shape_of_zkey(struct key_shape *s, const struct zkey *zk)
{
    *s = (struct key_shape){
        .path = zk->path,
        .curve = zk->curve,
        .n_vars = zk->n_vars,
        .n_public = zk->n_public,
        .domain_size = zk->domain_size,
        .log_domain = zk->log_domain,
        .n_coefs = zk->n_coefs,
    };
}
