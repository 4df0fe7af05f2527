/*
 * fault_program.c — a witness program that misbehaves, for tests/witness.sh.
 *
 * Run as witness programs are (PROGRAM INPUT WTNS); what it does is chosen
 * by the end of its own file name (argv[0]; the test makes one copy per
 * kind): "-segv" dereferences NULL, "-loop" spins on the CPU, "-sleep"
 * sleeps (the wall-clock limit), "-alloc" allocates and touches memory
 * without bound, "-exit" prints a message and exits 3, "-truncated" writes
 * W (a real witness) less its last 100 bytes, "-prime" writes W with one
 * byte of its prime changed, "-slow" writes W after a second (a program to
 * kill synthd under), anything else writes W (tests/bench_pipeline.sh's
 * replay program, for keygen's circuits, which have no circom program).
 * W is argv[0].dat, the data file beside it that slotprove pins as it pins
 * circom's, when that file is a .wtns (its magic "wtns"): the program runs
 * in the witness sandbox (synthd/witness_sandbox.h), where no other file of
 * the host can be read. Otherwise argv[0].dat holds a path, one line, and W
 * is that file (run outside the sandbox only).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Copies W (named in SELF.dat) to out in 1 MiB pieces (any size, little
 * memory: it is also bench-pipeline's replay program), less its last cut
 * bytes, with one byte of the prime flipped when flip_prime. */
static int copy_witness(const char *self, const char *out, long cut, int flip_prime)
{
    char dat[4096], src[4096] = "";
    snprintf(dat, sizeof(dat), "%s.dat", self);
    FILE *d = fopen(dat, "r");
    if (!d || !fgets(src, sizeof(src), d)) {
        fprintf(stderr, "fault_program: cannot read %s\n", dat);
        return 1;
    }
    fclose(d);
    if (strncmp(src, "wtns", 4) == 0)
        snprintf(src, sizeof(src), "%s", dat); /* the .dat is the witness */
    else
        src[strcspn(src, "\n")] = 0;
    FILE *f = fopen(src, "rb"), *g = fopen(out, "wb");
    if (!f || !g || fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "fault_program: cannot open %s or %s\n", src, out);
        return 1;
    }
    long left = ftell(f);
    rewind(f);
    if (cut && cut < left)
        left -= cut;
    static unsigned char buf[1 << 20];
    for (long off = 0; left > 0;) {
        size_t want = left < (long)sizeof(buf) ? (size_t)left : sizeof(buf);
        size_t n = fread(buf, 1, want, f);
        if (n == 0)
            break;
        if (flip_prime && off == 0 && n > 40)
            buf[28] ^= 1; /* section 1: u32 id, u64 size, u32 n8, then the prime at 24 */
        if (fwrite(buf, 1, n, g) != n)
            return 1;
        off += (long)n;
        left -= (long)n;
    }
    fclose(f);
    return fclose(g) != 0;
}

int main(int argc, char **argv)
{
    const char *self = argv[0];
    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUT WTNS\n", self);
        return 2;
    }
    if (ends_with(self, "-segv")) {
        volatile int *p = NULL;
        return *p;
    }
    if (ends_with(self, "-loop"))
        for (volatile unsigned long i = 0;; i++)
            ;
    if (ends_with(self, "-sleep"))
        for (;;)
            pause();
    if (ends_with(self, "-alloc")) {
        for (;;) {
            char *p = malloc(64 << 20);
            if (!p) {
                fprintf(stderr, "fault_program: out of memory\n");
                return 4;
            }
            memset(p, 1, 64 << 20);
        }
    }
    if (ends_with(self, "-exit")) {
        fprintf(stderr, "something went wrong\nError: bad input signal x\n");
        return 3;
    }
    if (ends_with(self, "-truncated"))
        return copy_witness(self, argv[2], 100, 0);
    if (ends_with(self, "-slow"))
        sleep(1);
    if (ends_with(self, "-prime"))
        return copy_witness(self, argv[2], 0, 1);
    return copy_witness(self, argv[2], 0, 0);
}
