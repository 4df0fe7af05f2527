/* fault_delay.c — the fault tests' delays and holds (see fault_delay.h). */
#include "fault_delay.h"

#include <stdlib.h>
#include <unistd.h>

#define HOLD_MAX_MS 120000u /* under the core's 2-minute progress deadline */

static void delay_ms(const char *var)
{
    const char *s = getenv(var);
    if (s)
        usleep((useconds_t)strtoul(s, NULL, 10) * 1000);
}

/* While the file the environment variable VAR names exists, wait (10 ms
 * polls, at most HOLD_MAX_MS). */
static void hold(const char *var)
{
    const char *path = getenv(var);
    for (unsigned waited = 0; path && waited < HOLD_MAX_MS && access(path, F_OK) == 0; waited += 10)
        usleep(10000);
}

void fault_delay(void)
{
    delay_ms("SLOTPROVE_FAULT_DELAY_MS");
    hold("SLOTPROVE_FAULT_HOLD");
}

void fault_delay_released(void)
{
    delay_ms("SLOTPROVE_FAULT_RELEASED_MS");
    hold("SLOTPROVE_FAULT_HOLD_RELEASED");
}
