#ifndef SIMPLEX_TLS_H
#define SIMPLEX_TLS_H
/* A small C layer over the system OpenSSL 3 for SMP transport: TLS contexts configured as
 * simplexmq's defaultSupportedParams, connections driven through memory BIOs (so SwiftNIO owns
 * the socket), the Finished messages for tls-unique, and the X.509 operations (Ed25519/Ed448
 * certificates) that Swift libraries cannot do. Opaque types keep OpenSSL's headers out of Swift. */
#include <stddef.h>
#include <stdint.h>

typedef struct sxtls_ctx sxtls_ctx;
typedef struct sxtls_conn sxtls_conn;

/* Called during the handshake with the peer's certificate chain (leaf first, DER);
 * return 1 to accept, 0 to abort the handshake with a bad_certificate alert. */
typedef int (*sxtls_verify_cb)(void *arg, const uint8_t *const *ders, const size_t *lens, size_t count);

/* Copies the thread's OpenSSL error queue (or `fallback`) into buf and clears the queue. */
void sxtls_take_error(const char *fallback, char *buf, size_t len);

/* versions: 0x0303 (TLS 1.2) / 0x0304 (TLS 1.3). Empty strings leave OpenSSL's defaults.
 * alpn: wire format list (length-prefixed names); a server selects from it, a client offers it. */
sxtls_ctx *sxtls_ctx_new(int server, int min_version, int max_version, const char *cipher_list,
                         const char *ciphersuites, const char *groups, const char *sigalgs,
                         const uint8_t *alpn, size_t alpn_len, char *err, size_t errlen);
/* Certificate chain (leaf first) and the leaf's PKCS#8 private key; returns 1 or 0. */
int sxtls_ctx_use_chain(sxtls_ctx *ctx, const uint8_t *const *certs, const size_t *lens, size_t count,
                        const uint8_t *key, size_t key_len, char *err, size_t errlen);
void sxtls_ctx_free(sxtls_ctx *ctx);

sxtls_conn *sxtls_conn_new(sxtls_ctx *ctx);
void sxtls_conn_set_verify(sxtls_conn *c, sxtls_verify_cb cb, void *arg);
/* Ciphertext received from the network. */
int sxtls_conn_feed(sxtls_conn *c, const uint8_t *data, size_t len);
/* 1 handshake complete, 0 needs more input, -1 failed (see sxtls_conn_error). */
int sxtls_conn_handshake(sxtls_conn *c);
/* Ciphertext waiting to be sent, and taking it. */
size_t sxtls_conn_pending(sxtls_conn *c);
int sxtls_conn_drain(sxtls_conn *c, uint8_t *buf, size_t len);
/* Frees grown, empty BIO buffers (call when all input was read and all output drained). */
void sxtls_conn_compact(sxtls_conn *c);
/* Plaintext: >0 bytes read, 0 needs more input, -1 error, -2 peer sent close_notify. */
int sxtls_conn_read(sxtls_conn *c, uint8_t *buf, size_t len);
/* Plaintext out: bytes written (all of them) or -1. */
int sxtls_conn_write(sxtls_conn *c, const uint8_t *buf, size_t len);
void sxtls_conn_shutdown(sxtls_conn *c);
/* After a TLS 1.3 CHACHA20-POLY1305 handshake, protects the records itself with the traffic
 * secrets and frees OpenSSL's connection (about 12 KB): 1 done (or already), 0 not possible
 * (other version or suite, or OpenSSL holds unprocessed data); OpenSSL stays in use then.
 * Call after taking what the handshake produced (sxtls_conn_drain) and its details. */
int sxtls_conn_offload(sxtls_conn *c);
int sxtls_conn_offloaded(sxtls_conn *c);
/* Sends a TLS 1.3 KeyUpdate (requested = 1 asks the peer to update too); connections not offloaded only. */
int sxtls_conn_key_update(sxtls_conn *c, int requested);
/* The Finished verify_data this side sent (peer = 0) or received (peer = 1); returns its length. */
size_t sxtls_conn_finished(sxtls_conn *c, int peer, uint8_t *buf, size_t len);
/* Negotiated ALPN; length 0 when none. */
size_t sxtls_conn_alpn(sxtls_conn *c, uint8_t *buf, size_t len);
int sxtls_conn_version(sxtls_conn *c);
size_t sxtls_conn_cipher(sxtls_conn *c, char *buf, size_t len);
size_t sxtls_conn_group(sxtls_conn *c, char *buf, size_t len);
int sxtls_conn_session_reused(sxtls_conn *c);
/* 1 when the peer sent a session ticket (a server here never should). */
int sxtls_conn_has_ticket(sxtls_conn *c);
/* Peer chain as OpenSSL holds it (client side: leaf first). */
int sxtls_conn_peer_count(sxtls_conn *c);
int sxtls_conn_peer_cert(sxtls_conn *c, int index, uint8_t *buf, size_t len);
const char *sxtls_conn_error(sxtls_conn *c);
void sxtls_conn_free(sxtls_conn *c);

/* X.509. DER outputs are allocated with OPENSSL_malloc: release with sxtls_free. */
void sxtls_free(void *p);
/* Creates and signs a v3 certificate for subject_key (PKCS#8) by issuer_key (PKCS#8); issuer_cert
 * NULL means self-signed. ca = 1: basicConstraints critical CA:TRUE, SKID, AKID (the reference's
 * CA profile); ca = 0: CA:FALSE, keyUsage digitalSignature+nonRepudiation+keyAgreement,
 * extendedKeyUsage serverAuth, SKID, AKID. org may be NULL. Returns the DER length or -1. */
int sxtls_x509_create(const uint8_t *subject_key, size_t subject_key_len, const uint8_t *issuer_key,
                      size_t issuer_key_len, const uint8_t *issuer_cert, size_t issuer_cert_len,
                      const char *cn, const char *org, int ca, long days, long backdate_seconds,
                      uint8_t **out, char *err, size_t errlen);
/* 1 when der is one well-formed certificate with nothing after it. */
int sxtls_x509_parse_ok(const uint8_t *der, size_t len);
/* SubjectPublicKeyInfo DER of the certificate's key; returns the length or -1. */
int sxtls_x509_spki(const uint8_t *der, size_t len, uint8_t **out);
/* 1 when issuer's subject is cert's issuer name and issuer's key verifies cert's signature. */
int sxtls_x509_issued_by(const uint8_t *cert, size_t cert_len, const uint8_t *issuer, size_t issuer_len);
/* Validity as Unix seconds; 1 on success. */
int sxtls_x509_validity(const uint8_t *der, size_t len, int64_t *not_before, int64_t *not_after);
/* 1 when the certificate may sign others (basicConstraints CA, keyCertSign if keyUsage is present). */
int sxtls_x509_is_ca(const uint8_t *der, size_t len);
/* X.509 version field + 1 (3 for v3), or -1. */
int sxtls_x509_version(const uint8_t *der, size_t len);
/* Subject common name (UTF-8) into buf; returns its length or -1. */
int sxtls_x509_common_name(const uint8_t *der, size_t len, char *buf, size_t buflen);

#endif
