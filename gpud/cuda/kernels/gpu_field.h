/*
 * gpu_field.h — the field operations of gpu_field.cu, for tests.
 * Layouts, streams and error codes: gpu_types.h.
 */
#ifndef SLOTPROVE_CUDA_GPU_FIELD_H
#define SLOTPROVE_CUDA_GPU_FIELD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "err.h"

enum gpu_field {
    GPU_F_BN254_FR, GPU_F_BN254_FP, GPU_F_BN254_FP2,
    GPU_F_BLS12381_FR, GPU_F_BLS12381_FP, GPU_F_BLS12381_FP2
};
enum gpu_field_opcode { GPU_OP_MUL, GPU_OP_ADD, GPU_OP_SUB, GPU_OP_SQR };
/* out[i] = a[i] op b[i] (Montgomery product for MUL, a[i]² for SQR) for
 * n elements in host memory, in the CPU code's layout. */
int gpu_field_op(enum gpu_field f, enum gpu_field_opcode op, void *out, const void *a,
                 const void *b, size_t n, struct sp_err *e);

#ifdef __cplusplus
}
#endif

#endif
