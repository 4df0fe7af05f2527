/* fault_delay.c — the fault tests' delays (see fault_delay.h). */
#include "fault_delay.h"

#include <stdlib.h>
#include <unistd.h>

static void delay_ms(const char *var)
{
    const char *s = getenv(var);
    if (s)
        usleep((useconds_t)strtoul(s, NULL, 10) * 1000);
}

void fault_delay(void)
{
    delay_ms("SLOTPROVE_FAULT_DELAY_MS");
}

void fault_delay_released(void)
{
    delay_ms("SLOTPROVE_FAULT_RELEASED_MS");
}
