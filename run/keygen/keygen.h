/*
 * keygen.h — `slotprove keygen`: a synthetic circuit, a satisfying witness
 * and an INSECURE single-party Groth16 setup, for testing and benchmarks.
 *
 * Pieces (one idea per file):
 *   keygen.c               the command: arguments, size and disk checks,
 *                          temporary files renamed at the end
 *   keygen_types.h         the types the pieces share
 *   keygen_progress.c      the progress display, the work count
 *   keygen_gpu.c           the point sections on the GPU (its helper:
 *                          keygen_gpu_main.c)
 *   keygen_circuit.c       the circuit's shape (kinds of constraint, counts)
 *   keygen_circuit_tmpl.h  the circuit and its witness over one curve's Fr
 *   keygen_qap_tmpl.h      the QAP at τ: Lagrange bases, H bases
 *   keygen_setup_tmpl.h    the setup: secrets, sections of points, vk.json
 *   keygen_vk.c            vk.json text
 *   keygen_curve.h         the per-curve functions, for keygen and the tests
 *   keygen_bn254.c, keygen_bls12381.c  one instance of the templates per curve
 * The points are computed with common/fixed_base.h, the file layout with
 * common/zkey_write.h, vk_alphabeta_12 = e(alpha1, beta2) with the pairing
 * (common/<curve>_pairing.h).
 */
#ifndef SLOTPROVE_KEYGEN_H
#define SLOTPROVE_KEYGEN_H

/* `slotprove keygen` (keygen.c): INSECURE test keys. Returns the exit code
 * (0 success, 1 failure with a message on stderr, 2 usage). */
int cmd_keygen(int argc, char **argv);

#endif
