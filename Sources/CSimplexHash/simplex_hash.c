/* The low-level SHA512_* calls are deprecated in OpenSSL 3 in favour of EVP, whose per-call
 * fetch and context allocation cost more than the few blocks an HMAC here hashes. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "simplex_hash.h"
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>

/* The inner and outer hash states after the key's pad blocks: an HMAC key set up once serves
 * every block of an HKDF expansion. */
typedef struct {
    SHA512_CTX inner, outer;
} hmac_key;

static void hmac_key_init(hmac_key *k, const uint8_t *key, size_t keylen) {
    uint8_t block[SHA512_CBLOCK], pad[SHA512_CBLOCK];
    memset(block, 0, sizeof block);
    if (keylen > SHA512_CBLOCK) {
        SHA512(key, keylen, block);
    } else if (keylen > 0) {
        memcpy(block, key, keylen);
    }
    for (size_t i = 0; i < SHA512_CBLOCK; i++) pad[i] = block[i] ^ 0x36;
    SHA512_Init(&k->inner);
    SHA512_Update(&k->inner, pad, sizeof pad);
    for (size_t i = 0; i < SHA512_CBLOCK; i++) pad[i] = block[i] ^ 0x5c;
    SHA512_Init(&k->outer);
    SHA512_Update(&k->outer, pad, sizeof pad);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
}

static void hmac_parts(const hmac_key *k, const uint8_t *m1, size_t l1, const uint8_t *m2, size_t l2,
                       const uint8_t *m3, size_t l3, uint8_t out[64]) {
    SHA512_CTX c = k->inner;
    uint8_t h[SHA512_DIGEST_LENGTH];
    if (l1) SHA512_Update(&c, m1, l1);
    if (l2) SHA512_Update(&c, m2, l2);
    if (l3) SHA512_Update(&c, m3, l3);
    SHA512_Final(h, &c);
    c = k->outer;
    SHA512_Update(&c, h, sizeof h);
    SHA512_Final(out, &c);
    OPENSSL_cleanse(&c, sizeof c);
    OPENSSL_cleanse(h, sizeof h);
}

void sxhash_hmac_sha512(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen, uint8_t out[64]) {
    hmac_key k;
    hmac_key_init(&k, key, keylen);
    hmac_parts(&k, msg, msglen, NULL, 0, NULL, 0, out);
    OPENSSL_cleanse(&k, sizeof k);
}

int sxhash_hkdf_sha512(const uint8_t *salt, size_t saltlen, const uint8_t *ikm, size_t ikmlen,
                       const uint8_t *info, size_t infolen, uint8_t *out, size_t outlen) {
    if (outlen > 255 * SHA512_DIGEST_LENGTH) return -1;
    if (outlen == 0) return 0;
    static const uint8_t zeros[SHA512_DIGEST_LENGTH] = {0};
    uint8_t prk[SHA512_DIGEST_LENGTH], t[SHA512_DIGEST_LENGTH];
    hmac_key k;
    if (saltlen == 0) { salt = zeros; saltlen = sizeof zeros; }
    hmac_key_init(&k, salt, saltlen);
    hmac_parts(&k, ikm, ikmlen, NULL, 0, NULL, 0, prk);
    hmac_key_init(&k, prk, sizeof prk);
    size_t done = 0;
    uint8_t counter = 1;
    while (done < outlen) {
        /* T(i) = HMAC(PRK, T(i-1) || info || i) */
        hmac_parts(&k, t, counter > 1 ? sizeof t : 0, info, infolen, &counter, 1, t);
        size_t n = outlen - done < sizeof t ? outlen - done : sizeof t;
        memcpy(out + done, t, n);
        done += n;
        counter++;
    }
    OPENSSL_cleanse(&k, sizeof k);
    OPENSSL_cleanse(prk, sizeof prk);
    OPENSSL_cleanse(t, sizeof t);
    return 0;
}
