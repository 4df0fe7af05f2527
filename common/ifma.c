/* ifma.c - see ifma.h: the run-time choice of the AVX-512 IFMA kernels. */
#include "ifma.h"

#include <stdlib.h>

static int supported, enabled;

int ifma_enabled(void)
{
    return enabled;
}

int ifma_supported(void)
{
    return supported;
}

/* cpuid says AVX-512F and IFMA and the OS saves the zmm state (gcc's and
 * clang's __builtin_cpu_supports check XCR0 for AVX-512). */
__attribute__((constructor)) static void ifma_init(void)
{
#if IFMA_X86
    __builtin_cpu_init();
    supported = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#endif
    const char *no = getenv("SLOTPROVE_NO_IFMA");
    enabled = supported && (!no || !*no);
}
