/*
 * synth_share.c — the supervisor's side of the shared synthesis index
 * (synthd/synth_index_share.h): it keeps the sealed memfd the first synthd
 * built for a key and passes it on with the key; it never maps it (the
 * postmaster rule: no payload is read here).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keys.h"
#include "kids.h"
#include "synth_share.h"

void keys_adopt_synth_index(struct key_entry *k, int fd)
{
    const int need = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW;
    struct stat st;
    int seals = fcntl(fd, F_GET_SEALS);
    if (!k->used || k->has_synth_index || seals < 0 || (seals & need) != need ||
        fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    k->synth_index_fd = fd;
    k->has_synth_index = 1;
}

int synth_share_wait(const struct kid_table *t, const struct key_entry *ke, uint32_t key_id,
                     const struct kid *k)
{
    if (ke->has_synth_index || (k->keys_sent >> key_id & 1))
        return 0;
    for (unsigned i = 0; i < t->nsynthds; i++) {
        const struct kid *o = &t->kids[i];
        if (o != k && o->alive && (o->keys_sent >> key_id & 1) && !(o->keys_loaded >> key_id & 1))
            return 1;
    }
    return 0;
}
