/*
 * cuda_bellperson_row.h — the CUDA backend's bellperson row (backend.h's
 * backend_format for CTL_KEY_BELLPERSON keys; the zkey row is
 * cuda_backend.c's), on the prover of cuda_bellperson.h:
 *   prove_start    makes the key's engines if it has none (cuda_bp_ready),
 *                  then copies a, b and the witness off the slot into host
 *                  memory (kept for a CPU re-prove). A key whose engines
 *                  do not fit the budget (-E2BIG) fails the partition under
 *                  `cuda`, and is proved on the fallback from the slot under
 *                  `auto` (cuda_fallback.h);
 *   prove_finish   the proof on the device (cuda_bp_prove); a device
 *                  failure under `auto` proves it on the fallback from the
 *                  kept inputs. The job stays until job_done;
 *   reprove        a proof that failed gpud's check, proved on the fallback
 *                  from the kept inputs (1 when the fallback made it);
 *   key_drop       frees the key's engines (bellperson_key.h's engine).
 */
#ifndef SLOTPROVE_CUDA_BELLPERSON_ROW_H
#define SLOTPROVE_CUDA_BELLPERSON_ROW_H

#include "backend.h"

extern const struct backend_format cuda_bellperson_format;

#endif
