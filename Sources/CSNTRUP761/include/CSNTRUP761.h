/*
 * Streamlined NTRU Prime 761 (sntrup761), the KEM of SimpleX's post-quantum double ratchet.
 * Written for SimpleX-Swift from the NTRU Prime round-3 specification (p = 761, q = 4591,
 * w = 286); the byte formats are those of the specification, which simplexmq's bindings use.
 *
 * Randomness is a callback so callers can inject it (tests replay known answers); it is asked
 * for 4 bytes per 32-bit random value and for the 191 bytes of rho, as the reference does.
 */
#ifndef CSNTRUP761_H
#define CSNTRUP761_H

#include <stddef.h>
#include <stdint.h>

#define SXQ_SNTRUP761_PUBLICKEY_BYTES 1158
#define SXQ_SNTRUP761_SECRETKEY_BYTES 1763
#define SXQ_SNTRUP761_CIPHERTEXT_BYTES 1039
#define SXQ_SNTRUP761_SHAREDSECRET_BYTES 32

/* Fills dst with length random bytes. */
typedef void sxq_sntrup761_random_fn(void *ctx, size_t length, uint8_t *dst);

/* Key generation: pk (1158 bytes), sk (1763 bytes). Returns 0, or -1 if hashing failed. */
int sxq_sntrup761_keypair(uint8_t *pk, uint8_t *sk, void *random_ctx, sxq_sntrup761_random_fn *random);

/* Encapsulation to pk: ciphertext c (1039 bytes) and shared secret k (32 bytes). */
int sxq_sntrup761_enc(uint8_t *c, uint8_t *k, const uint8_t *pk, void *random_ctx, sxq_sntrup761_random_fn *random);

/* Decapsulation with implicit rejection: a ciphertext that does not re-encrypt to itself gives a
 * pseudo-random k derived from the secret rho, never an error. Constant time in sk and c. */
int sxq_sntrup761_dec(uint8_t *k, const uint8_t *c, const uint8_t *sk);

#endif
