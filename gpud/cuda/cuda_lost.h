/*
 * cuda_lost.h — whether the CUDA context is still usable.
 *
 *   cuda_gpu_failed(rc)  a failed CUDA call's rc (returned as is); an -EIO
 *                        with the context lost (a sticky error) marks it.
 *   cuda_is_lost()       1 once marked: the backend proves nothing more and
 *                        gpud exits so a fresh process takes the GPU.
 */
#ifndef SLOTPROVE_CUDA_LOST_H
#define SLOTPROVE_CUDA_LOST_H

int cuda_gpu_failed(int rc);
int cuda_is_lost(void);

#endif
