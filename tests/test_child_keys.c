/*
 * test_child_keys.c — the children's key table (shm/child_keys.c):
 * KEY_LOAD maps a fixture key under its id (sizes as snarkjs wrote them,
 * read back by zkey_open on its own), a second load under the same id
 * replaces it, KEY_DROP forgets it, ids out of range and bad keys fail with
 * a reason.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "child_keys.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(child_keys, .timeout = 120);

#define FIX "tests/fixtures/bn128/"

static struct child_key tab[CTL_MAX_KEYS];

static int load(uint32_t id, const char *path, struct sp_err *e)
{
    static struct ctl_msg m;
    ctl_init(&m, CTL_KEY_LOAD);
    m.key_id = id;
    ctl_text(&m, "%s", path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    cr_assert_geq(fd, 0, "%s", path);
    int rc = child_key_load(tab, &m, &fd, 1, 1, e);
    close(fd);
    return rc;
}

Test(child_keys, load_replace_drop)
{
    struct sp_err e = { "" };
    struct zkey direct;
    int fd = open(FIX "chain.zkey", O_RDONLY | O_CLOEXEC);
    cr_assert_eq(zkey_open(&direct, fd, "chain.zkey", &e), 0, "%s", e.msg);
    close(fd);

    cr_assert_null(child_key_get(tab, 7));
    cr_assert_eq(load(7, FIX "chain.zkey", &e), 0, "%s", e.msg);
    const struct child_key *k = child_key_get(tab, 7);
    cr_assert_not_null(k);
    cr_assert_eq(k->zk.domain_size, direct.domain_size);
    cr_assert_eq(k->zk.n_vars, direct.n_vars);
    cr_assert_str_eq(k->name, FIX "chain.zkey");
    cr_assert_eq(load(7, FIX "nopub.zkey", &e), 0, "%s", e.msg);
    cr_assert_str_eq(child_key_get(tab, 7)->name, FIX "nopub.zkey", "a reload replaces it");
    child_key_drop(tab, 7);
    cr_assert_null(child_key_get(tab, 7));
    child_key_drop(tab, 7); /* twice: nothing to do */
    zkey_close(&direct);

    cr_assert_eq(load(CTL_MAX_KEYS, FIX "chain.zkey", &e), -EINVAL);
    cr_assert(strstr(e.msg, "out of range") != NULL, "%s", e.msg);
    cr_assert_lt(load(3, FIX "plonk.zkey", &e), 0);
    cr_assert(strstr(e.msg, "PLONK") != NULL, "%s", e.msg);
    cr_assert_null(child_key_get(tab, 3), "a failed load leaves nothing loaded");
    cr_assert_null(child_key_get(tab, CTL_MAX_KEYS + 5));
}
