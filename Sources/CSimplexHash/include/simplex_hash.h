#ifndef SIMPLEX_HASH_H
#define SIMPLEX_HASH_H
/* HMAC-SHA512 and HKDF-SHA512 (RFC 2104, RFC 5869) on the system OpenSSL's SHA-512, which runs
 * its AVX2 code on any x86-64 that has it: every v11 transport block and every ratchet message
 * takes an HKDF step, and libsodium's portable SHA-512 made those 6% of the agents' CPU. */
#include <stddef.h>
#include <stdint.h>

/* HMAC-SHA512 of `msg` under `key`. */
void sxhash_hmac_sha512(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen, uint8_t out[64]);

/* HKDF-SHA512: extract with `salt` (empty: 64 zero bytes, as the RFC says), expand `outlen`
 * bytes with `info`. Returns 0, or -1 when outlen exceeds 255 * 64. */
int sxhash_hkdf_sha512(const uint8_t *salt, size_t saltlen, const uint8_t *ikm, size_t ikmlen,
                       const uint8_t *info, size_t infolen, uint8_t *out, size_t outlen);
#endif
