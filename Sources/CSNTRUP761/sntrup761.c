/*
 * Streamlined NTRU Prime 761 for SimpleX-Swift, written from the NTRU Prime round-3
 * specification ("NTRU Prime: round 3", sections on Streamlined NTRU Prime, its encodings and
 * the KEM with implicit rejection). Parameters: p = 761, q = 4591, w = 286.
 *
 * Rings: R/q = Z_q[x]/(x^p - x - 1) with coefficients kept in [-(q-1)/2, (q-1)/2];
 *        R/3 with coefficients in {-1, 0, 1} ("small").
 * Constant time: no branch and no memory index depends on secret data (keys, r, the shared
 * secret). Loops run over public lengths; inversions use fixed-iteration division steps; the
 * Short sampler sorts with a data-independent network; comparisons produce masks.
 * Decoding of public keys and ciphertexts (public data) divides by public moduli only.
 */
#include "CSNTRUP761.h"

#include <string.h>
#include <openssl/evp.h>

/* The polynomial loops below vectorise; on x86-64 Linux they are also built for AVX2 and the
 * loader picks that build on CPUs that have it (an ifunc), which makes key generation (two
 * inversions, at every PQ ratchet step) about 2.5x faster than the SSE2 baseline. */
#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define SXQ_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef SXQ_VECTOR_CLONES
#define SXQ_VECTOR_CLONES
#endif

#define P 761
#define Q 4591
#define W 286
#define Q12 ((Q - 1) / 2)
#define ROUNDED_MOD ((Q + 2) / 3) /* 1531: range of a rounded coefficient divided by 3 */

#define SMALL_BYTES 191    /* (P + 3) / 4 */
#define RQ_BYTES 1158      /* Encode of P values mod Q */
#define ROUNDED_BYTES 1007 /* Encode of P values mod 1531 */
#define HASH_BYTES 32
#define CT_BYTES (ROUNDED_BYTES + HASH_BYTES)

typedef int8_t small;
typedef int16_t fq;

/* ---------- constant-time integer helpers ---------- */

/* -1 when x != 0, else 0. */
static int mask_nonzero(int16_t x) {
    int32_t v = (uint16_t)x;
    v = -v;
    return (int)(v >> 31);
}

/* -1 when x < 0, else 0. */
static int mask_negative(int16_t x) { return (int)(((int32_t)x) >> 15); }

/* x mod m for 0 <= x < 2^32 and m < 2^16, without division: the estimate floor(x * floor(2^32/m) / 2^32)
 * is at most one short of the quotient, so one masked subtraction finishes it. */
static uint32_t mod_const(uint32_t x, uint32_t m, uint32_t minv) {
    uint32_t qe = (uint32_t)(((uint64_t)x * minv) >> 32);
    uint32_t r = x - qe * m; /* 0 <= r < 2m */
    r -= m;
    r += m & (uint32_t)(0 - (r >> 31));
    return r;
}

#define QINV32 935518u /* floor(2^32 / 4591) */
#define THREEINV32 1431655765u /* floor(2^32 / 3) */

/* Representative in [-Q12, Q12] of x mod q, for |x| < 2^27. */
static fq fq_freeze(int32_t x) {
    uint32_t u = (uint32_t)(x + Q12 + Q * (1 << 15));
    return (fq)((int32_t)mod_const(u, Q, QINV32) - Q12);
}

/* Representative in {-1, 0, 1} of x mod 3, for |x| < 2^27. */
static small f3_freeze(int32_t x) {
    uint32_t u = (uint32_t)(x + 1 + 3 * (1 << 27));
    return (small)((int32_t)mod_const(u, 3, THREEINV32) - 1);
}

/* f3_freeze for x in [-2, 2] (a sum of two small values): +3 below -1, -3 above 1, by masks. */
static inline int32_t f3_small(int32_t x) {
    x += 3 & ((x + 1) >> 8);
    x -= 3 & ((1 - x) >> 8);
    return x;
}

/* 1/a in Z_q as a^(q-2); the exponent is public, so the square-and-multiply pattern is fixed. */
static fq fq_recip(fq a) {
    int32_t result = 1, base = a;
    uint32_t e = Q - 2;
    while (e) {
        if (e & 1) result = fq_freeze(result * base);
        base = fq_freeze(base * base);
        e >>= 1;
    }
    return (fq)result;
}

/* ---------- polynomial arithmetic ---------- */

/* h = f * g in R/q, f with Z_q coefficients, g small. */
SXQ_VECTOR_CLONES
static void rq_mult_small(fq *h, const fq *f, const small *g) {
    int32_t fg[2 * P - 1];
    int i, j;
    for (i = 0; i < 2 * P - 1; ++i) fg[i] = 0;
    for (i = 0; i < P; ++i)
        for (j = 0; j < P; ++j) fg[i + j] += (int32_t)f[i] * g[j];
    /* x^p = x + 1: fold the high half down, highest degree first. */
    for (i = 2 * P - 2; i >= P; --i) {
        fg[i - P] += fg[i];
        fg[i - P + 1] += fg[i];
    }
    for (i = 0; i < P; ++i) h[i] = fq_freeze(fg[i]);
}

/* h = f * g in R/3. */
SXQ_VECTOR_CLONES
static void r3_mult(small *h, const small *f, const small *g) {
    int32_t fg[2 * P - 1];
    int i, j;
    for (i = 0; i < 2 * P - 1; ++i) fg[i] = 0;
    for (i = 0; i < P; ++i)
        for (j = 0; j < P; ++j) fg[i + j] += (int32_t)f[i] * g[j];
    for (i = 2 * P - 2; i >= P; --i) {
        fg[i - P] += fg[i];
        fg[i - P + 1] += fg[i];
    }
    for (i = 0; i < P; ++i) h[i] = f3_freeze(fg[i]);
}

/* Inversion by 2p-1 constant-time division steps (Bernstein-Yang) on reversed polynomials:
 * f starts as the reversed modulus x^p - x - 1, g as the reversed input; v, r track the Bezout
 * factor of the input. Returns 0 when invertible (out = 1/in in R/3), -1 otherwise. */
SXQ_VECTOR_CLONES
static int r3_recip(small *out, const small *in) {
    small f[P + 1], g[P + 1], v[P + 1], r[P + 1];
    int i, n, loop, delta = 1, sign, swap, t;
    for (i = 0; i <= P; ++i) { v[i] = 0; r[i] = 0; f[i] = 0; }
    r[0] = 1;
    f[0] = 1;
    f[P - 1] = -1;
    f[P] = -1;
    for (i = 0; i < P; ++i) g[P - 1 - i] = in[i];
    g[P] = 0;
    for (loop = 0; loop < 2 * P - 1; ++loop) {
        /* v and r have no terms above x^loop here (both start within x^0 and gain one degree per
         * step), so their passes stop at x^(loop+1): a bound from the step count, not the data. */
        n = loop + 2 < P + 1 ? loop + 2 : P + 1;
        memmove(v + 1, v, (size_t)(n - 1) * sizeof v[0]);
        v[0] = 0;
        sign = -g[0] * f[0];
        swap = mask_negative((int16_t)-delta) & mask_nonzero(g[0]);
        delta ^= swap & (delta ^ -delta);
        delta += 1;
        for (i = 0; i <= P; ++i) { t = swap & (f[i] ^ g[i]); f[i] ^= t; g[i] ^= t; }
        for (i = 0; i < n; ++i) { t = swap & (v[i] ^ r[i]); v[i] ^= t; r[i] ^= t; }
        /* g = (g + sign * f) / x: its constant term is 0, so the update and the shift are one pass. */
        for (i = 0; i < P; ++i) g[i] = (small)f3_small(g[i + 1] + sign * f[i + 1]);
        g[P] = 0;
        for (i = 0; i < n; ++i) r[i] = (small)f3_small(r[i] + sign * v[i]);
    }
    sign = f[0];
    for (i = 0; i < P; ++i) out[i] = (small)(sign * v[P - 1 - i]);
    return mask_nonzero((int16_t)delta);
}

/* out = 1/(3 * in) in R/q for small in; always invertible for the keys we make. */
SXQ_VECTOR_CLONES
static int rq_recip3(fq *out, const small *in) {
    fq f[P + 1], g[P + 1], v[P + 1], r[P + 1];
    int i, n, loop, delta = 1, swap, t;
    int32_t f0, g0;
    fq scale;
    for (i = 0; i <= P; ++i) { v[i] = 0; r[i] = 0; f[i] = 0; }
    r[0] = fq_recip(3);
    f[0] = 1;
    f[P - 1] = -1;
    f[P] = -1;
    for (i = 0; i < P; ++i) g[P - 1 - i] = in[i];
    g[P] = 0;
    for (loop = 0; loop < 2 * P - 1; ++loop) {
        /* As in r3_recip: v and r stop at x^(loop+1). */
        n = loop + 2 < P + 1 ? loop + 2 : P + 1;
        memmove(v + 1, v, (size_t)(n - 1) * sizeof v[0]);
        v[0] = 0;
        swap = mask_negative((int16_t)-delta) & mask_nonzero(g[0]);
        delta ^= swap & (delta ^ -delta);
        delta += 1;
        for (i = 0; i <= P; ++i) { t = swap & (f[i] ^ g[i]); f[i] ^= t; g[i] ^= t; }
        for (i = 0; i < n; ++i) { t = swap & (v[i] ^ r[i]); v[i] ^= t; r[i] ^= t; }
        f0 = f[0];
        g0 = g[0];
        /* The constant term of the new g is 0, so the update and the shift are one pass. */
        for (i = 0; i < P; ++i) g[i] = fq_freeze(f0 * g[i + 1] - g0 * f[i + 1]);
        g[P] = 0;
        for (i = 0; i < n; ++i) r[i] = fq_freeze(f0 * r[i] - g0 * v[i]);
    }
    scale = fq_recip(f[0]);
    for (i = 0; i < P; ++i) out[i] = fq_freeze((int32_t)scale * v[P - 1 - i]);
    return mask_nonzero((int16_t)delta);
}

/* ---------- encodings ---------- */

/* Spec "Encode": pairs of values with ranges M[i], M[i+1] merge into one value with range
 * M[i]*M[i+1]; whole bytes are emitted while that range is at least 2^14; recurse. The loop
 * counts depend only on the public ranges. */
static uint8_t *encode(uint8_t *out, const uint16_t *R, const uint16_t *M, long len) {
    long i;
    if (len == 1) {
        uint32_t r = R[0], m = M[0];
        while (m > 1) {
            *out++ = (uint8_t)r;
            r >>= 8;
            m = (m + 255) >> 8;
        }
        return out;
    }
    {
        uint16_t R2[(len + 1) / 2], M2[(len + 1) / 2];
        for (i = 0; i < len - 1; i += 2) {
            uint32_t m0 = M[i];
            uint32_t r = R[i] + R[i + 1] * m0;
            uint32_t m = M[i + 1] * m0;
            while (m >= 16384) {
                *out++ = (uint8_t)r;
                r >>= 8;
                m = (m + 255) >> 8;
            }
            R2[i / 2] = (uint16_t)r;
            M2[i / 2] = (uint16_t)m;
        }
        if (i < len) {
            R2[i / 2] = R[i];
            M2[i / 2] = M[i];
        }
        return encode(out, R2, M2, (len + 1) / 2);
    }
}

/* Spec "Decode", the inverse of encode; every output is reduced into its range, so any byte
 * string decodes (as the specification requires). Only used on public keys and ciphertexts. */
static void decode(uint16_t *out, const uint8_t *S, const uint16_t *M, long len) {
    long i, k = 0;
    if (len == 1) {
        if (M[0] == 1) out[0] = 0;
        else if (M[0] <= 256) out[0] = (uint16_t)(S[0] % M[0]);
        else out[0] = (uint16_t)((S[0] + ((uint32_t)S[1] << 8)) % M[0]);
        return;
    }
    {
        uint16_t R2[(len + 1) / 2], M2[(len + 1) / 2];
        uint32_t bottom_r[len / 2], bottom_t[len / 2];
        for (i = 0; i < len - 1; i += 2) {
            uint32_t m = M[i] * (uint32_t)M[i + 1], r = 0, t = 1;
            while (m >= 16384) {
                r += S[k++] * t;
                t <<= 8;
                m = (m + 255) >> 8;
            }
            bottom_r[i / 2] = r;
            bottom_t[i / 2] = t;
            M2[i / 2] = (uint16_t)m;
        }
        if (i < len) M2[i / 2] = M[i];
        decode(R2, S + k, M2, (len + 1) / 2);
        for (i = 0; i < len - 1; i += 2) {
            uint32_t r = bottom_r[i / 2] + bottom_t[i / 2] * R2[i / 2];
            out[i] = (uint16_t)(r % M[i]);
            out[i + 1] = (uint16_t)((r / M[i]) % M[i + 1]);
        }
        if (i < len) out[i] = R2[i / 2];
    }
}

static void rq_encode(uint8_t *s, const fq *h) {
    uint16_t R[P], M[P];
    int i;
    for (i = 0; i < P; ++i) { R[i] = (uint16_t)(h[i] + Q12); M[i] = Q; }
    encode(s, R, M, P);
}

static void rq_decode(fq *h, const uint8_t *s) {
    uint16_t R[P], M[P];
    int i;
    for (i = 0; i < P; ++i) M[i] = Q;
    decode(R, s, M, P);
    for (i = 0; i < P; ++i) h[i] = (fq)(R[i] - Q12);
}

/* Rounded coefficients are multiples of 3 in [-Q12, Q12]; (c + Q12)/3 is sent, in range 1531. */
static void rounded_encode(uint8_t *s, const fq *c) {
    uint16_t R[P], M[P];
    int i;
    for (i = 0; i < P; ++i) {
        R[i] = (uint16_t)((((int32_t)c[i] + Q12) * 10923) >> 15); /* exact /3 for this range */
        M[i] = ROUNDED_MOD;
    }
    encode(s, R, M, P);
}

static void rounded_decode(fq *c, const uint8_t *s) {
    uint16_t R[P], M[P];
    int i;
    for (i = 0; i < P; ++i) M[i] = ROUNDED_MOD;
    decode(R, s, M, P);
    for (i = 0; i < P; ++i) c[i] = (fq)(R[i] * 3 - Q12);
}

/* Small polynomials: four coefficients per byte, each as c+1 in two bits, lowest first. */
static void small_encode(uint8_t *s, const small *f) {
    int i;
    for (i = 0; i < P / 4; ++i) {
        uint8_t x = (uint8_t)(f[4 * i] + 1);
        x |= (uint8_t)((f[4 * i + 1] + 1) << 2);
        x |= (uint8_t)((f[4 * i + 2] + 1) << 4);
        x |= (uint8_t)((f[4 * i + 3] + 1) << 6);
        s[i] = x;
    }
    s[P / 4] = (uint8_t)(f[P - 1] + 1);
}

static void small_decode(small *f, const uint8_t *s) {
    int i;
    for (i = 0; i < P / 4; ++i) {
        uint8_t x = s[i];
        f[4 * i] = (small)((x & 3) - 1);
        f[4 * i + 1] = (small)(((x >> 2) & 3) - 1);
        f[4 * i + 2] = (small)(((x >> 4) & 3) - 1);
        f[4 * i + 3] = (small)(((x >> 6) & 3) - 1);
    }
    f[P - 1] = (small)((s[P / 4] & 3) - 1);
}

/* ---------- hashing ---------- */

/* Hash_prefix(b, s): the first 32 bytes of SHA-512(b || s). */
static int hash_prefix(uint8_t *out, uint8_t b, const uint8_t *in, size_t inlen) {
    uint8_t full[64];
    unsigned int len = 0;
    int ok = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx && EVP_DigestInit_ex(ctx, EVP_sha512(), NULL) == 1 && EVP_DigestUpdate(ctx, &b, 1) == 1
        && EVP_DigestUpdate(ctx, in, inlen) == 1 && EVP_DigestFinal_ex(ctx, full, &len) == 1 && len == 64)
        ok = 1;
    EVP_MD_CTX_free(ctx);
    memcpy(out, full, HASH_BYTES);
    memset(full, 0, sizeof full);
    return ok ? 0 : -1;
}

/* HashConfirm(r, cache) = Hash_prefix(2, Hash_prefix(3, r) || cache), cache = Hash_prefix(4, pk). */
static int hash_confirm(uint8_t *h, const uint8_t *r_enc, const uint8_t *cache) {
    uint8_t x[2 * HASH_BYTES];
    int rc = hash_prefix(x, 3, r_enc, SMALL_BYTES);
    memcpy(x + HASH_BYTES, cache, HASH_BYTES);
    rc |= hash_prefix(h, 2, x, sizeof x);
    return rc;
}

/* HashSession(b, y, z) = Hash_prefix(b, Hash_prefix(3, y) || z); b = 1 accepts, 0 rejects. */
static int hash_session(uint8_t *k, uint8_t b, const uint8_t *y, const uint8_t *z) {
    uint8_t x[HASH_BYTES + CT_BYTES];
    int rc = hash_prefix(x, 3, y, SMALL_BYTES);
    memcpy(x + HASH_BYTES, z, CT_BYTES);
    rc |= hash_prefix(k, b, x, sizeof x);
    return rc;
}

/* ---------- randomness ---------- */

/* A 32-bit value from 4 random bytes, little-endian (one request per value, as the reference). */
static uint32_t random32(void *ctx, sxq_sntrup761_random_fn *random) {
    uint8_t c[4];
    random(ctx, 4, c);
    return (uint32_t)c[0] | ((uint32_t)c[1] << 8) | ((uint32_t)c[2] << 16) | ((uint32_t)c[3] << 24);
}

/* Orders a and b (a <= b) without branching. */
static void minmax32(uint32_t *a, uint32_t *b) {
    uint64_t d = (uint64_t)*b - (uint64_t)*a;
    uint32_t mask = (uint32_t)(0 - (uint32_t)(d >> 63));
    uint32_t t = (*a ^ *b) & mask;
    *a ^= t;
    *b ^= t;
}

/* Ascending bitonic sorting network over 1024 slots; the comparisons depend on positions only.
 * The P values are padded with 0xffffffff, which no Short candidate takes (see short_from_list). */
static void sort_uint32(uint32_t *x, int n) {
    uint32_t a[1024];
    int i, j, k;
    for (i = 0; i < 1024; ++i) a[i] = i < n ? x[i] : 0xffffffffu;
    for (k = 2; k <= 1024; k <<= 1)
        for (j = k >> 1; j > 0; j >>= 1)
            for (i = 0; i < 1024; ++i) {
                int l = i ^ j;
                if (l > i) {
                    if ((i & k) == 0) minmax32(&a[i], &a[l]);
                    else minmax32(&a[l], &a[i]);
                }
            }
    for (i = 0; i < n; ++i) x[i] = a[i];
    memset(a, 0, sizeof a);
}

/* Short (weight w, coefficients in {-1,0,1}) from p random words: the first w words get low bits
 * 00 or 10 (coefficient -1 or +1), the others 01 (coefficient 0); sorting on the whole word
 * shuffles the positions, and the low two bits give the coefficient. */
static void short_from_list(small *out, const uint32_t *in) {
    uint32_t L[P];
    int i;
    for (i = 0; i < W; ++i) L[i] = in[i] & (uint32_t)-2;       /* low bits x0: value -1 or +1 */
    for (i = W; i < P; ++i) L[i] = (in[i] & (uint32_t)-3) | 1; /* low bits 01: value 0 */
    sort_uint32(L, P);
    for (i = 0; i < P; ++i) out[i] = (small)((L[i] & 3) - 1);
    memset(L, 0, sizeof L);
}

static void short_random(small *out, void *ctx, sxq_sntrup761_random_fn *random) {
    uint32_t L[P];
    int i;
    for (i = 0; i < P; ++i) L[i] = random32(ctx, random);
    short_from_list(out, L);
    memset(L, 0, sizeof L);
}

/* Uniform small polynomial: floor(3 * (30 random bits) / 2^30) - 1. */
static void small_random(small *out, void *ctx, sxq_sntrup761_random_fn *random) {
    int i;
    for (i = 0; i < P; ++i) out[i] = (small)((((random32(ctx, random) & 0x3fffffff) * 3) >> 30) - 1);
}

/* ---------- the KEM ---------- */

/* -1 unless r has weight exactly w. */
static int weight_mask(const small *r) {
    int i, weight = 0;
    for (i = 0; i < P; ++i) weight += r[i] & 1;
    return mask_nonzero((int16_t)(weight - W));
}

/* c = Round(h * r), encoded; r_enc = Small encoding of r; confirmation hash appended. */
static int hide(uint8_t *c, uint8_t *r_enc, const small *r, const uint8_t *pk, const uint8_t *cache) {
    fq h[P], hr[P];
    int i;
    small_encode(r_enc, r);
    rq_decode(h, pk);
    rq_mult_small(hr, h, r);
    for (i = 0; i < P; ++i) hr[i] = (fq)(hr[i] - f3_freeze(hr[i])); /* round to a multiple of 3 */
    rounded_encode(c, hr);
    return hash_confirm(c + ROUNDED_BYTES, r_enc, cache);
}

int sxq_sntrup761_keypair(uint8_t *pk, uint8_t *sk, void *random_ctx, sxq_sntrup761_random_fn *random) {
    small g[P], ginv[P], f[P];
    fq finv[P], h[P];
    int rc;
    for (;;) {
        small_random(g, random_ctx, random);
        if (r3_recip(ginv, g) == 0) break;
    }
    short_random(f, random_ctx, random);
    rq_recip3(finv, f);
    rq_mult_small(h, finv, g); /* h = g / (3f) */
    rq_encode(pk, h);
    /* sk = f || 1/g || pk || rho || Hash_prefix(4, pk) */
    small_encode(sk, f);
    small_encode(sk + SMALL_BYTES, ginv);
    memcpy(sk + 2 * SMALL_BYTES, pk, RQ_BYTES);
    random(random_ctx, SMALL_BYTES, sk + 2 * SMALL_BYTES + RQ_BYTES);
    rc = hash_prefix(sk + 2 * SMALL_BYTES + RQ_BYTES + SMALL_BYTES, 4, pk, RQ_BYTES);
    memset(g, 0, sizeof g);
    memset(ginv, 0, sizeof ginv);
    memset(f, 0, sizeof f);
    memset(finv, 0, sizeof finv);
    return rc;
}

int sxq_sntrup761_enc(uint8_t *c, uint8_t *k, const uint8_t *pk, void *random_ctx, sxq_sntrup761_random_fn *random) {
    small r[P];
    uint8_t r_enc[SMALL_BYTES], cache[HASH_BYTES];
    int rc;
    short_random(r, random_ctx, random);
    rc = hash_prefix(cache, 4, pk, RQ_BYTES);
    rc |= hide(c, r_enc, r, pk, cache);
    rc |= hash_session(k, 1, r_enc, c);
    memset(r, 0, sizeof r);
    memset(r_enc, 0, sizeof r_enc);
    return rc;
}

int sxq_sntrup761_dec(uint8_t *k, const uint8_t *c, const uint8_t *sk) {
    const uint8_t *pk = sk + 2 * SMALL_BYTES;
    const uint8_t *rho = pk + RQ_BYTES;
    const uint8_t *cache = rho + SMALL_BYTES;
    small f[P], v[P], e[P], ev[P], r[P];
    fq cq[P], cf[P];
    uint8_t r_enc[SMALL_BYTES], cnew[CT_BYTES];
    int i, mask, rc;
    uint16_t diff = 0;

    /* r = (3 f c mod 3) / g, or a fixed weight-w vector when that is not of weight w */
    small_decode(f, sk);
    small_decode(v, sk + SMALL_BYTES);
    rounded_decode(cq, c);
    rq_mult_small(cf, cq, f);
    for (i = 0; i < P; ++i) e[i] = f3_freeze(fq_freeze(3 * (int32_t)cf[i]));
    r3_mult(ev, e, v);
    mask = weight_mask(ev);
    for (i = 0; i < W; ++i) r[i] = (small)(((ev[i] ^ 1) & ~mask) ^ 1);
    for (i = W; i < P; ++i) r[i] = (small)(ev[i] & ~mask);

    /* re-encrypt; accept only when the ciphertext is reproduced exactly */
    rc = hide(cnew, r_enc, r, pk, cache);
    for (i = 0; i < CT_BYTES; ++i) diff |= (uint16_t)(c[i] ^ cnew[i]);
    mask = (int)(1 & ((diff - 1) >> 8)) - 1; /* 0 when equal, -1 otherwise */
    for (i = 0; i < SMALL_BYTES; ++i) r_enc[i] ^= (uint8_t)(mask & (r_enc[i] ^ rho[i]));
    rc |= hash_session(k, (uint8_t)(1 + mask), r_enc, c);

    memset(f, 0, sizeof f);
    memset(v, 0, sizeof v);
    memset(e, 0, sizeof e);
    memset(ev, 0, sizeof ev);
    memset(r, 0, sizeof r);
    memset(cf, 0, sizeof cf);
    memset(r_enc, 0, sizeof r_enc);
    return rc;
}
