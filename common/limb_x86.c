/* limb_x86.c — run-time choice of the field multiplication path (limb.h):
 * mulx/adcx/adox when cpuid reports BMI2 and ADX, unless $SLOTPROVE_NO_ADX
 * is set to a non-empty value (tests use it to run the portable C path). */
#include "limb.h"

#if LIMB_ADX
#include <cpuid.h>
#include <stdlib.h>

int limb_adx_enabled;

/* cpuid leaf 7 subleaf 0, EBX: bit 8 BMI2 (mulx), bit 19 ADX (adcx/adox). */
static int cpu_has_bmi2_adx(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 8 & 1) && (b >> 19 & 1);
}

__attribute__((constructor)) static void limb_adx_init(void)
{
    const char *no = getenv("SLOTPROVE_NO_ADX");
    limb_adx_enabled = (!no || !*no) && cpu_has_bmi2_adx();
}
#endif
