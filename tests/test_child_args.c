/* test_child_args.c — child_args_parse (shm/child.h): the arguments the
 * supervisor gives its children (run/sup/proc.c), gpud's --workers at its
 * limit and one past it. */
#include <criterion/criterion.h>

#include "child.h"

static int parse(struct child_args *a, const char *workers, struct sp_err *e)
{
    char *argv[] = { "gpud", "--ctl-fd", "3", "--pool-fds", "4,5", "--incarnation", "7",
                     "--supervisor", "1", "--workers", (char *)workers, NULL };
    return child_args_parse(a, 11, argv, e);
}

Test(child_args, workers_at_the_limit_and_one_past)
{
    struct child_args a;
    struct sp_err e = { "" };
    cr_assert_eq(parse(&a, "1", &e), 0, "%s", e.msg);
    cr_assert_eq(a.workers, 1);
    cr_assert_eq(parse(&a, "4", &e), 0, "%s", e.msg);
    cr_assert_eq(a.workers, CHILD_MAX_WORKERS);
    cr_assert_lt(parse(&a, "5", &e), 0);
    cr_assert(strstr(e.msg, "--workers 5"), "%s", e.msg);
    cr_assert_lt(parse(&a, "0", &e), 0);
}

Test(child_args, workers_not_given_is_zero)
{
    char *argv[] = { "gpud", "--ctl-fd", "3", "--pool-fds", "4,5", "--incarnation", "7",
                     "--supervisor", "1", NULL };
    struct child_args a;
    struct sp_err e = { "" };
    cr_assert_eq(child_args_parse(&a, 9, argv, &e), 0, "%s", e.msg);
    cr_assert_eq(a.workers, 0); /* gpud: the backend's own count */
}
