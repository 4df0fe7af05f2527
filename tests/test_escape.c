/*
 * test_escape.c — control bytes in client-supplied names cannot split a log
 * line or a message: each is written as an escape; other bytes are kept.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "escape.h"

/* a hang fails the run naming the test (seconds per test, >= 15x the
 * slowest measured on the loaded 2-core box) */
TestSuite(escape, .timeout = 120);

Test(escape, control_bytes)
{
    char out[128];
    escape_ctl(out, sizeof(out), "w.wtns\nslotprove serve[1] 00:00:00: job x done\r\t\x1b[2J\x7f");
    cr_assert_str_eq(out, "w.wtns\\nslotprove serve[1] 00:00:00: job x done\\r\\t\\x1b[2J\\x7f");
    cr_assert_null(strchr(out, '\n'));
}

Test(escape, keeps_text_and_utf8)
{
    char out[64];
    const char *s = "résumé/ключ.zkey \\ \"q\"";
    cr_assert_eq(escape_ctl(out, sizeof(out), s), strlen(s));
    cr_assert_str_eq(out, s);
}

/* Every byte value 1..255 alone: a naive rule decides the expected output. */
Test(escape, every_byte)
{
    for (int b = 1; b < 256; b++) {
        char in[2] = { (char)b, 0 }, out[8], want[8];
        if (b == '\n') strcpy(want, "\\n");
        else if (b == '\r') strcpy(want, "\\r");
        else if (b == '\t') strcpy(want, "\\t");
        else if (b < 32 || b == 127) snprintf(want, sizeof(want), "\\x%02x", b);
        else strcpy(want, in);
        escape_ctl(out, sizeof(out), in);
        cr_assert_str_eq(out, want, "byte %d", b);
    }
}

Test(escape, cut_at_a_whole_escape)
{
    char out[6];
    escape_ctl(out, sizeof(out), "ab\ncd");
    cr_assert_str_eq(out, "ab\\nc");
    escape_ctl(out, 4, "ab\ncd");
    cr_assert_str_eq(out, "ab");
}

Test(escape, sp_fail_messages_are_one_line)
{
    struct sp_err e;
    sp_fail(&e, SP_EFORMAT, "%s: truncated", "evil\nslotprove: job done.wtns");
    cr_assert_str_eq(e.msg, "evil\\nslotprove: job done.wtns: truncated");
}
