/*
 * bp_program.c — a witness program for a bellperson key, for
 * tests/bellperson.sh (issue 38.2).
 *
 * Run as witness programs are (PROGRAM INPUT OUT.wtns), in synthd's sandbox.
 * INPUT is a JSON object {"wires": ["1", "v1", ...]}: the partition's
 * values in bellperson's order [inputs | aux] (wire 0 = 1, the public
 * inputs, then the aux wires), each a decimal string < r of BLS12-381. It
 * writes them as the iden3 .wtns container common/README-bellperson.md
 * describes: "wtns", version 2, 2 sections; section 1 {n8 = 32, r
 * little-endian, nWitness}; section 2 nWitness × 32 bytes little-endian.
 * The test makes the JSON from keygen's circuit.wtns with Python, so the
 * program's output is proved only if its own decimal parsing and layout
 * agree with keygen's writer (the prover's constraint check and `verify
 * --bellperson` judge it).
 *
 * A value of 78 digits or more, or one that is not a decimal string, ends
 * it with exit 2 and the reason on stderr (its output is then no witness).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* r of BLS12-381's scalar field, little-endian bytes */
static const uint8_t R_LE[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
    0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73,
};

static void put32(FILE *f, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    fwrite(b, 1, 4, f);
}

static void put64(FILE *f, uint64_t v)
{
    put32(f, (uint32_t)v);
    put32(f, (uint32_t)(v >> 32));
}

/* decimal digits s[0..n) into out (32 bytes, little-endian): out = out*10 + d */
static int parse_decimal(const char *s, size_t n, uint8_t out[32])
{
    memset(out, 0, 32);
    if (n == 0 || n > 77)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned carry = (unsigned)(s[i] - '0');
        for (int k = 0; k < 32; k++) {
            unsigned v = out[k] * 10u + carry;
            out[k] = (uint8_t)v;
            carry = v >> 8;
        }
        if (carry)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUT.json OUT.wtns\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + len, 1, cap - len - 1, in)) > 0;) {
        len += got;
        if (len + 1 == cap)
            text = realloc(text, cap *= 2);
    }
    fclose(in);
    if (!text) {
        fprintf(stderr, "bp_program: out of memory\n");
        return 4;
    }
    text[len] = 0;
    const char *p = strstr(text, "\"wires\"");
    p = p ? strchr(p, '[') : NULL;
    if (!p) {
        fprintf(stderr, "bp_program: %s: no \"wires\" array\n", argv[1]);
        return 2;
    }
    /* the values, in order: each "digits" up to the closing ] */
    size_t nw = 0, wcap = 1024;
    uint8_t *w = malloc(wcap * 32);
    for (p++; w && *p && *p != ']';) {
        if (*p != '"') {
            p++;
            continue;
        }
        const char *e = strchr(p + 1, '"');
        if (!e) {
            fprintf(stderr, "bp_program: %s: unterminated string\n", argv[1]);
            return 2;
        }
        if (nw == wcap)
            w = realloc(w, (wcap *= 2) * 32);
        if (!w)
            break;
        if (parse_decimal(p + 1, (size_t)(e - p - 1), w + nw * 32) < 0) {
            fprintf(stderr, "bp_program: %s: wire %zu: not a decimal value below 2^256\n",
                    argv[1], nw);
            return 2;
        }
        nw++;
        p = e + 1;
    }
    if (!w) {
        fprintf(stderr, "bp_program: out of memory\n");
        return 4;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 2;
    }
    fwrite("wtns", 1, 4, out);
    put32(out, 2); /* version */
    put32(out, 2); /* sections */
    put32(out, 1); /* section 1: n8, r, nWitness */
    put64(out, 4 + 32 + 4);
    put32(out, 32);
    fwrite(R_LE, 1, 32, out);
    put32(out, (uint32_t)nw);
    put32(out, 2); /* section 2: the values */
    put64(out, (uint64_t)nw * 32);
    fwrite(w, 32, nw, out);
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 2;
    }
    free(w);
    free(text);
    return 0;
}
