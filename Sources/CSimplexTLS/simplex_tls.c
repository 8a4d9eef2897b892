#define _GNU_SOURCE
#include "simplex_tls.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/bio.h>
#include <openssl/buffer.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

struct sxtls_ctx {
    SSL_CTX *ctx;
    int server;
    uint8_t *alpn; /* server: the names it accepts, wire format */
    size_t alpn_len;
};

/* One direction of a TLS 1.3 connection whose records we protect ourselves (see
 * sxtls_conn_offload): the traffic secret (for KeyUpdate), its key and IV, the record number. */
struct record_keys {
    uint8_t secret[32];
    uint8_t key[32];
    uint8_t iv[12];
    uint64_t seq;
    int ready;
};

/* A byte queue with a read offset; its memory is released whenever it empties. */
struct byte_queue {
    uint8_t *buf;
    size_t off, len, cap;
};

struct sxtls_conn {
    SSL *ssl;  /* NULL after offload */
    BIO *rbio; /* network -> OpenSSL */
    BIO *wbio; /* OpenSSL -> network */
    sxtls_verify_cb verify;
    void *verify_arg;
    int server;
    int offloaded;
    int peer_closed;
    int ticket_seen; /* offloaded client: the server sent a NewSessionTicket */
    struct record_keys rd, wr; /* traffic secrets from the key log, then the offloaded keys */
    struct byte_queue in, out; /* offloaded: ciphertext received / to send */
    char error[256];
};

/* The SSL ex_data slot holding our connection; registered once per process. */
static int conn_index = -1;
static pthread_once_t conn_index_once = PTHREAD_ONCE_INIT;
static void register_conn_index(void) { conn_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }

void sxtls_take_error(const char *fallback, char *buf, size_t len) {
    if (!buf || len == 0) { ERR_clear_error(); return; }
    unsigned long code = ERR_get_error();
    if (code == 0) {
        snprintf(buf, len, "%s", fallback ? fallback : "unknown error");
    } else {
        char tmp[200];
        ERR_error_string_n(code, tmp, sizeof tmp);
        snprintf(buf, len, "%s: %s", fallback ? fallback : "openssl", tmp);
    }
    ERR_clear_error();
}

/* Server ALPN: the first of the server's names that the client offered; no overlap = no ALPN
 * (the SMP server then offers the legacy version range). */
static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
    (void)ssl;
    struct sxtls_ctx *c = arg;
    size_t i = 0;
    while (i < c->alpn_len) {
        size_t n = c->alpn[i];
        const uint8_t *name = c->alpn + i + 1;
        unsigned int j = 0;
        while (j < inlen) {
            unsigned int m = in[j];
            if (j + 1 + m > inlen) break;
            if (m == n && memcmp(in + j + 1, name, n) == 0) {
                *out = in + j + 1;
                *outlen = (unsigned char)m;
                return SSL_TLSEXT_ERR_OK;
            }
            j += 1 + m;
        }
        i += 1 + n;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

static int hex_nibble(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* OpenSSL's key log (NSS format) is the supported way to learn the TLS 1.3 application traffic
 * secrets; they stay in the connection until sxtls_conn_offload derives the record keys. */
static void keylog(const SSL *ssl, const char *line) {
    struct sxtls_conn *c = SSL_get_ex_data(ssl, conn_index);
    if (!c) return;
    struct record_keys *k = NULL;
    if (strncmp(line, "CLIENT_TRAFFIC_SECRET_0 ", 24) == 0) k = c->server ? &c->rd : &c->wr;
    else if (strncmp(line, "SERVER_TRAFFIC_SECRET_0 ", 24) == 0) k = c->server ? &c->wr : &c->rd;
    if (!k) return;
    const char *p = strchr(line + 24, ' '); /* after the client random */
    if (!p || strlen(p + 1) != 64) return;  /* SHA-256 suites only */
    for (int i = 0; i < 32; i++) {
        int hi = hex_nibble(p[1 + 2 * i]), lo = hex_nibble(p[2 + 2 * i]);
        if (hi < 0 || lo < 0) return;
        k->secret[i] = (uint8_t)(hi << 4 | lo);
    }
    k->ready = 1;
}

/* Client certificate check: hands the whole chain to the caller's callback. */
static int verify_chain(X509_STORE_CTX *store, void *arg) {
    (void)arg;
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    struct sxtls_conn *c = ssl ? SSL_get_ex_data(ssl, conn_index) : NULL;
    if (!c || !c->verify) {
        X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
        return 0;
    }
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_untrusted(store);
    int n = chain ? sk_X509_num(chain) : 0;
    if (n <= 0 || n > 16) {
        X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
        return 0;
    }
    uint8_t *ders[16];
    size_t lens[16];
    int got = 0, ok = 1;
    for (int i = 0; i < n; i++) {
        uint8_t *der = NULL;
        int len = i2d_X509(sk_X509_value(chain, i), &der);
        if (len <= 0) { ok = 0; break; }
        ders[i] = der;
        lens[i] = (size_t)len;
        got++;
    }
    if (ok) ok = c->verify(c->verify_arg, (const uint8_t *const *)ders, lens, (size_t)n) == 1;
    for (int i = 0; i < got; i++) OPENSSL_free(ders[i]);
    if (!ok) X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
    return ok;
}

sxtls_ctx *sxtls_ctx_new(int server, int min_version, int max_version, const char *cipher_list,
                         const char *ciphersuites, const char *groups, const char *sigalgs,
                         const uint8_t *alpn, size_t alpn_len, char *err, size_t errlen) {
    pthread_once(&conn_index_once, register_conn_index);
    if (conn_index < 0) { sxtls_take_error("ex index", err, errlen); return NULL; }
    SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (!ctx) { sxtls_take_error("SSL_CTX_new", err, errlen); return NULL; }
    struct sxtls_ctx *c = calloc(1, sizeof *c);
    if (!c) { SSL_CTX_free(ctx); snprintf(err, errlen, "out of memory"); return NULL; }
    c->ctx = ctx;
    c->server = server;
    const char *step = NULL;
    if (min_version && !SSL_CTX_set_min_proto_version(ctx, min_version)) step = "min version";
    else if (max_version && !SSL_CTX_set_max_proto_version(ctx, max_version)) step = "max version";
    else if (cipher_list && *cipher_list && !SSL_CTX_set_cipher_list(ctx, cipher_list)) step = "cipher list";
    else if (ciphersuites && *ciphersuites && !SSL_CTX_set_ciphersuites(ctx, ciphersuites)) step = "ciphersuites";
    else if (groups && *groups && !SSL_CTX_set1_groups_list(ctx, groups)) step = "groups";
    else if (sigalgs && *sigalgs && !SSL_CTX_set1_sigalgs_list(ctx, sigalgs)) step = "sigalgs";
    if (step) { sxtls_take_error(step, err, errlen); sxtls_ctx_free(c); return NULL; }
    /* No session resumption: no tickets (TLS 1.2 and 1.3), no session cache. */
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_num_tickets(ctx, 0);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    /* An idle connection keeps no 16 KB record buffers (thousands of clients per relay). */
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_keylog_callback(ctx, keylog);
    if (server) {
        if (alpn_len > 0) {
            c->alpn = malloc(alpn_len);
            if (!c->alpn) { sxtls_ctx_free(c); snprintf(err, errlen, "out of memory"); return NULL; }
            memcpy(c->alpn, alpn, alpn_len);
            c->alpn_len = alpn_len;
            SSL_CTX_set_alpn_select_cb(ctx, alpn_select, c);
        }
        /* Client certificates are not requested (service certificates are not supported). */
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    } else {
        if (alpn_len > 0 && SSL_CTX_set_alpn_protos(ctx, alpn, (unsigned int)alpn_len) != 0) {
            sxtls_take_error("alpn", err, errlen);
            sxtls_ctx_free(c);
            return NULL;
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        SSL_CTX_set_cert_verify_callback(ctx, verify_chain, NULL);
    }
    return c;
}

static EVP_PKEY *pkey_from_pkcs8(const uint8_t *der, size_t len) {
    const unsigned char *p = der;
    PKCS8_PRIV_KEY_INFO *p8 = d2i_PKCS8_PRIV_KEY_INFO(NULL, &p, (long)len);
    if (!p8) return NULL;
    EVP_PKEY *k = EVP_PKCS82PKEY(p8);
    PKCS8_PRIV_KEY_INFO_free(p8);
    return k;
}

static X509 *x509_from_der(const uint8_t *der, size_t len) {
    const unsigned char *p = der;
    X509 *x = d2i_X509(NULL, &p, (long)len);
    if (x && p != der + len) { X509_free(x); return NULL; }
    return x;
}

int sxtls_ctx_use_chain(sxtls_ctx *c, const uint8_t *const *certs, const size_t *lens, size_t count,
                        const uint8_t *key, size_t key_len, char *err, size_t errlen) {
    if (count == 0) { snprintf(err, errlen, "empty certificate chain"); return 0; }
    X509 *leaf = x509_from_der(certs[0], lens[0]);
    if (!leaf) { sxtls_take_error("leaf certificate", err, errlen); return 0; }
    int ok = SSL_CTX_use_certificate(c->ctx, leaf);
    X509_free(leaf);
    if (!ok) { sxtls_take_error("use certificate", err, errlen); return 0; }
    for (size_t i = 1; i < count; i++) {
        X509 *x = x509_from_der(certs[i], lens[i]);
        if (!x) { sxtls_take_error("chain certificate", err, errlen); return 0; }
        ok = SSL_CTX_add1_chain_cert(c->ctx, x);
        X509_free(x);
        if (!ok) { sxtls_take_error("add chain certificate", err, errlen); return 0; }
    }
    EVP_PKEY *k = pkey_from_pkcs8(key, key_len);
    if (!k) { sxtls_take_error("private key", err, errlen); return 0; }
    ok = SSL_CTX_use_PrivateKey(c->ctx, k);
    EVP_PKEY_free(k);
    if (!ok || !SSL_CTX_check_private_key(c->ctx)) { sxtls_take_error("private key does not match", err, errlen); return 0; }
    return 1;
}

void sxtls_ctx_free(sxtls_ctx *c) {
    if (!c) return;
    SSL_CTX_free(c->ctx);
    free(c->alpn);
    free(c);
}

sxtls_conn *sxtls_conn_new(sxtls_ctx *ctx) {
    struct sxtls_conn *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->ssl = SSL_new(ctx->ctx);
    c->rbio = BIO_new(BIO_s_mem());
    c->wbio = BIO_new(BIO_s_mem());
    if (!c->ssl || !c->rbio || !c->wbio) {
        if (c->ssl) SSL_free(c->ssl);
        BIO_free(c->rbio);
        BIO_free(c->wbio);
        free(c);
        ERR_clear_error();
        return NULL;
    }
    BIO_set_mem_eof_return(c->rbio, -1);
    SSL_set_bio(c->ssl, c->rbio, c->wbio); /* SSL owns the BIOs now */
    SSL_set_ex_data(c->ssl, conn_index, c);
    c->server = ctx->server;
    if (ctx->server) SSL_set_accept_state(c->ssl);
    else SSL_set_connect_state(c->ssl);
    return c;
}

void sxtls_conn_set_verify(sxtls_conn *c, sxtls_verify_cb cb, void *arg) {
    c->verify = cb;
    c->verify_arg = arg;
}

/* ---- The TLS 1.3 record layer after the handshake (RFC 8446 §5.2-5.4, §7.1-7.3) ----
 * OpenSSL keeps about 12 KB per connection after the handshake (the SSL object, its session
 * and cipher contexts) that a relay with thousands of idle clients pays for each, and its memory
 * BIOs copy every record once more (and clear their buffers when released). Once a handshake
 * completes with TLS_CHACHA20_POLY1305_SHA256, the records are protected here with the traffic
 * secrets from the key log and the SSL object is freed: the same bytes on the wire. */

#define RECORD_MAX_PLAIN 16384
#define RECORD_MAX_CIPHER (RECORD_MAX_PLAIN + 256)
#define AEAD_TAG 16

static EVP_CIPHER *chacha_cipher = NULL;
static pthread_once_t chacha_once = PTHREAD_ONCE_INIT;
static void fetch_chacha(void) { chacha_cipher = EVP_CIPHER_fetch(NULL, "ChaCha20-Poly1305", NULL); }

static int queue_reserve(struct byte_queue *q, size_t extra) {
    if (q->off > 0 && q->off == q->len) q->off = q->len = 0;
    if (q->len + extra <= q->cap) return 1;
    if (q->off > 0) { /* move the unread tail to the front first */
        memmove(q->buf, q->buf + q->off, q->len - q->off);
        q->len -= q->off;
        q->off = 0;
        if (q->len + extra <= q->cap) return 1;
    }
    /* Grows by half again at least: a flush of many records appends one at a time. */
    size_t cap = q->len + extra;
    if (cap < q->cap + q->cap / 2) cap = q->cap + q->cap / 2;
    uint8_t *b = realloc(q->buf, cap);
    if (!b) return 0;
    q->buf = b;
    q->cap = cap;
    return 1;
}

static void queue_release_if_empty(struct byte_queue *q) {
    if (q->off < q->len) return;
    free(q->buf);
    q->buf = NULL;
    q->off = q->len = q->cap = 0;
}

/* HKDF-Expand-Label(secret, label, "", len) for len <= 32: one HMAC-SHA256 block. */
static int expand_label(const uint8_t secret[32], const char *label, uint8_t *out, size_t len) {
    uint8_t info[64];
    size_t label_len = strlen(label), n = 0;
    info[n++] = 0;
    info[n++] = (uint8_t)len;
    info[n++] = (uint8_t)(6 + label_len);
    memcpy(info + n, "tls13 ", 6);
    n += 6;
    memcpy(info + n, label, label_len);
    n += label_len;
    info[n++] = 0; /* empty context */
    info[n++] = 1; /* HKDF-Expand's block counter */
    uint8_t block[32];
    unsigned int block_len = 0;
    if (!HMAC(EVP_sha256(), secret, 32, info, n, block, &block_len) || block_len != 32) return 0;
    memcpy(out, block, len);
    OPENSSL_cleanse(block, sizeof block);
    return 1;
}

static int derive_keys(struct record_keys *k) {
    k->seq = 0;
    return expand_label(k->secret, "key", k->key, 32) && expand_label(k->secret, "iv", k->iv, 12);
}

/* KeyUpdate: the next generation of a direction's traffic secret. */
static int next_generation(struct record_keys *k) {
    uint8_t next[32];
    if (!expand_label(k->secret, "traffic upd", next, 32)) return 0;
    memcpy(k->secret, next, 32);
    OPENSSL_cleanse(next, sizeof next);
    return derive_keys(k);
}

/* ChaCha20-Poly1305 over one record: the nonce is the IV xor the record number, the additional
 * data the record header. in/out lengths are the plaintext's; the tag is 16 bytes apart. */
static int record_aead(struct record_keys *k, int enc, const uint8_t header[5], const uint8_t *in, size_t len,
                       const uint8_t *extra, size_t extra_len, uint8_t *out, uint8_t *tag) {
    pthread_once(&chacha_once, fetch_chacha);
    if (!chacha_cipher) return 0;
    uint8_t nonce[12];
    memcpy(nonce, k->iv, 12);
    for (int i = 0; i < 8; i++) nonce[4 + i] ^= (uint8_t)(k->seq >> (56 - 8 * i));
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int ok = x != NULL, n = 0;
    ok = ok && EVP_CipherInit_ex2(x, chacha_cipher, k->key, nonce, enc, NULL);
    if (ok && !enc) ok = EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, AEAD_TAG, tag);
    ok = ok && EVP_CipherUpdate(x, NULL, &n, header, 5);
    if (ok && len > 0) ok = EVP_CipherUpdate(x, out, &n, in, (int)len);
    if (ok && extra_len > 0) ok = EVP_CipherUpdate(x, out + len, &n, extra, (int)extra_len);
    ok = ok && EVP_CipherFinal_ex(x, out + len + extra_len, &n);
    if (ok && enc) ok = EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, AEAD_TAG, tag);
    EVP_CIPHER_CTX_free(x);
    ERR_clear_error();
    if (ok) k->seq++;
    return ok;
}

/* Appends one protected record (content type `type`) to the output queue. */
static int seal_record(sxtls_conn *c, uint8_t type, const uint8_t *data, size_t len) {
    size_t body = len + 1 + AEAD_TAG;
    if (!queue_reserve(&c->out, 5 + body)) return 0;
    uint8_t *h = c->out.buf + c->out.len;
    h[0] = 23;
    h[1] = 3;
    h[2] = 3;
    h[3] = (uint8_t)(body >> 8);
    h[4] = (uint8_t)body;
    if (!record_aead(&c->wr, 1, h, data, len, &type, 1, h + 5, h + 5 + len + 1)) return 0;
    c->out.len += 5 + body;
    return 1;
}

int sxtls_conn_offload(sxtls_conn *c) {
    if (c->offloaded) return 1;
    if (!c->ssl || SSL_version(c->ssl) != TLS1_3_VERSION || !SSL_is_init_finished(c->ssl)) return 0;
    const SSL_CIPHER *cipher = SSL_get_current_cipher(c->ssl);
    if (!cipher || SSL_CIPHER_get_protocol_id(cipher) != 0x1303) return 0; /* TLS_CHACHA20_POLY1305_SHA256 */
    if (!c->rd.ready || !c->wr.ready) return 0;
    /* Only at a record boundary with nothing held inside OpenSSL and all it wrote taken. */
    if (SSL_has_pending(c->ssl) || BIO_ctrl_pending(c->wbio) > 0) return 0;
    if (!derive_keys(&c->rd) || !derive_keys(&c->wr)) return 0;
    size_t unread = BIO_ctrl_pending(c->rbio);
    if (unread > 0) {
        if (!queue_reserve(&c->in, unread)) return 0;
        int r = BIO_read(c->rbio, c->in.buf + c->in.len, (int)unread);
        if (r != (int)unread) return 0;
        c->in.len += unread;
    }
    SSL_free(c->ssl); /* and its BIOs */
    c->ssl = NULL;
    c->rbio = c->wbio = NULL;
    c->offloaded = 1;
    return 1;
}

int sxtls_conn_offloaded(sxtls_conn *c) { return c->offloaded; }

/* Handshake messages after the handshake, each whole in its record: KeyUpdate both ways, and a
 * server's NewSessionTicket, which a client without resumption notes and ignores. */
static int post_handshake(sxtls_conn *c, const uint8_t *p, size_t len) {
    while (len > 0) {
        if (len < 4) return 0;
        size_t n = (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
        if (len < 4 + n) return 0;
        if (p[0] == 4 && !c->server) {
            c->ticket_seen = 1;
            p += 4 + n;
            len -= 4 + n;
            continue;
        }
        if (p[0] != 24 || n != 1 || p[4] > 1) return 0;
        int requested = p[4] == 1;
        if (!next_generation(&c->rd)) return 0;
        if (requested) {
            const uint8_t update[5] = {24, 0, 0, 1, 0}; /* update_not_requested */
            if (!seal_record(c, 22, update, sizeof update) || !next_generation(&c->wr)) return 0;
        }
        p += 5;
        len -= 5;
    }
    return 1;
}

static int offloaded_read(sxtls_conn *c, uint8_t *buf, size_t len) {
    for (;;) {
        if (c->peer_closed) return -2;
        size_t avail = c->in.len - c->in.off;
        if (avail < 5) return 0;
        const uint8_t *h = c->in.buf + c->in.off;
        size_t body = (size_t)h[3] << 8 | h[4];
        if (h[0] != 23 || h[1] != 3 || h[2] != 3 || body < 1 + AEAD_TAG || body > RECORD_MAX_CIPHER) {
            snprintf(c->error, sizeof c->error, "read: malformed record (type %u, length %zu)", h[0], body);
            return -1;
        }
        if (avail < 5 + body) return 0;
        size_t inner = body - AEAD_TAG;
        if (len < inner) { snprintf(c->error, sizeof c->error, "read: buffer too small"); return -1; }
        uint8_t tag[AEAD_TAG];
        memcpy(tag, h + 5 + inner, AEAD_TAG);
        if (!record_aead(&c->rd, 0, h, h + 5, inner, NULL, 0, buf, tag)) {
            snprintf(c->error, sizeof c->error, "read: bad record mac");
            return -1;
        }
        c->in.off += 5 + body;
        size_t n = inner;
        while (n > 0 && buf[n - 1] == 0) n--; /* padding */
        if (n == 0) { snprintf(c->error, sizeof c->error, "read: record without content type"); return -1; }
        uint8_t type = buf[n - 1];
        n--;
        if (type == 23) {
            if (n == 0) continue;
            return (int)n;
        }
        if (type == 21) {
            if (n == 2 && buf[1] == 0) { c->peer_closed = 1; return -2; } /* close_notify */
            snprintf(c->error, sizeof c->error, "read: peer alert %u", n == 2 ? buf[1] : 0);
            return -1;
        }
        if (type == 22 && post_handshake(c, buf, n)) continue;
        snprintf(c->error, sizeof c->error, "read: unexpected record (content type %u)", type);
        return -1;
    }
}

static int offloaded_write(sxtls_conn *c, const uint8_t *buf, size_t len) {
    size_t done = 0;
    while (done < len) {
        size_t n = len - done < RECORD_MAX_PLAIN ? len - done : RECORD_MAX_PLAIN;
        if (!seal_record(c, 23, buf + done, n)) { snprintf(c->error, sizeof c->error, "write: sealing failed"); return -1; }
        done += n;
    }
    return (int)done;
}

int sxtls_conn_feed(sxtls_conn *c, const uint8_t *data, size_t len) {
    if (len == 0) return 0;
    if (c->offloaded) {
        if (!queue_reserve(&c->in, len)) return -1;
        memcpy(c->in.buf + c->in.len, data, len);
        c->in.len += len;
        return (int)len;
    }
    return BIO_write(c->rbio, data, (int)len);
}

static void set_error(sxtls_conn *c, const char *what) {
    sxtls_take_error(what, c->error, sizeof c->error);
}

int sxtls_conn_handshake(sxtls_conn *c) {
    if (c->offloaded) return 1;
    int r = SSL_do_handshake(c->ssl);
    if (r == 1) return 1;
    int e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) { ERR_clear_error(); return 0; }
    long v = SSL_get_verify_result(c->ssl);
    if (v != X509_V_OK) {
        snprintf(c->error, sizeof c->error, "certificate rejected: %s", X509_verify_cert_error_string(v));
        ERR_clear_error();
    } else {
        set_error(c, "handshake");
    }
    return -1;
}

size_t sxtls_conn_pending(sxtls_conn *c) { return c->offloaded ? c->out.len - c->out.off : BIO_ctrl_pending(c->wbio); }

/* A memory BIO keeps the largest buffer it ever held; an emptied one that holds any buffer is
   replaced by a fresh one (which allocates none until written), so an idle connection keeps
   no copy of its last records: with 2 KB socket reads the input BIO stays under 4 KB and was
   kept by the former 4 KB threshold, ~2.7 KB per idle client (issue 16). */
static BIO *fresh_if_grown(BIO *b) {
    BUF_MEM *bm = NULL;
    if (BIO_ctrl_pending(b) != 0) return NULL;
    BIO_get_mem_ptr(b, &bm);
    if (bm == NULL || bm->max == 0) return NULL;
    BIO *fresh = BIO_new(BIO_s_mem());
    if (fresh) BIO_set_mem_eof_return(fresh, -1);
    return fresh;
}

void sxtls_conn_compact(sxtls_conn *c) {
    if (c->offloaded) {
        queue_release_if_empty(&c->in);
        queue_release_if_empty(&c->out);
        return;
    }
    BIO *r = fresh_if_grown(c->rbio);
    if (r) { SSL_set0_rbio(c->ssl, r); c->rbio = r; } /* frees the old one */
    BIO *w = fresh_if_grown(c->wbio);
    if (w) { SSL_set0_wbio(c->ssl, w); c->wbio = w; }
}

int sxtls_conn_drain(sxtls_conn *c, uint8_t *buf, size_t len) {
    if (c->offloaded) {
        size_t n = c->out.len - c->out.off;
        if (n > len) n = len;
        if (n > 0) memcpy(buf, c->out.buf + c->out.off, n);
        c->out.off += n;
        return (int)n;
    }
    int r = BIO_read(c->wbio, buf, (int)len);
    return r < 0 ? 0 : r;
}

int sxtls_conn_read(sxtls_conn *c, uint8_t *buf, size_t len) {
    if (c->offloaded) return offloaded_read(c, buf, len);
    int r = SSL_read(c->ssl, buf, (int)len);
    if (r > 0) return r;
    int e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) { ERR_clear_error(); return 0; }
    if (e == SSL_ERROR_ZERO_RETURN) { ERR_clear_error(); return -2; }
    set_error(c, "read");
    return -1;
}

int sxtls_conn_write(sxtls_conn *c, const uint8_t *buf, size_t len) {
    if (c->offloaded) return offloaded_write(c, buf, len);
    size_t done = 0;
    while (done < len) {
        size_t n = 0;
        int r = SSL_write_ex(c->ssl, buf + done, len - done, &n);
        if (r != 1) { set_error(c, "write"); return -1; }
        done += n;
    }
    return (int)done;
}

void sxtls_conn_shutdown(sxtls_conn *c) {
    if (c->offloaded) {
        const uint8_t close_notify[2] = {1, 0};
        if (!seal_record(c, 21, close_notify, 2)) snprintf(c->error, sizeof c->error, "shutdown: sealing failed");
        return;
    }
    SSL_shutdown(c->ssl);
    ERR_clear_error();
}

size_t sxtls_conn_finished(sxtls_conn *c, int peer, uint8_t *buf, size_t len) {
    if (!c->ssl) return 0;
    return peer ? SSL_get_peer_finished(c->ssl, buf, len) : SSL_get_finished(c->ssl, buf, len);
}

size_t sxtls_conn_alpn(sxtls_conn *c, uint8_t *buf, size_t len) {
    const unsigned char *p = NULL;
    unsigned int n = 0;
    if (!c->ssl) return 0;
    SSL_get0_alpn_selected(c->ssl, &p, &n);
    if (!p || n == 0) return 0;
    if (n > len) n = (unsigned int)len;
    memcpy(buf, p, n);
    return n;
}

int sxtls_conn_version(sxtls_conn *c) { return c->ssl ? SSL_version(c->ssl) : TLS1_3_VERSION; }

size_t sxtls_conn_cipher(sxtls_conn *c, char *buf, size_t len) {
    const char *name = c->ssl ? SSL_get_cipher_name(c->ssl) : "TLS_CHACHA20_POLY1305_SHA256";
    if (!name || len == 0) return 0;
    snprintf(buf, len, "%s", name);
    return strlen(buf);
}

size_t sxtls_conn_group(sxtls_conn *c, char *buf, size_t len) {
    if (!c->ssl) return 0;
    int nid = SSL_get_shared_group(c->ssl, 0);
    int negotiated = (int)SSL_ctrl(c->ssl, SSL_CTRL_GET_NEGOTIATED_GROUP, 0, NULL);
    if (negotiated > 0) nid = negotiated;
    const char *name = nid > 0 ? OBJ_nid2sn(nid) : NULL;
    if (!name || len == 0) return 0;
    snprintf(buf, len, "%s", name);
    return strlen(buf);
}

int sxtls_conn_session_reused(sxtls_conn *c) { return c->ssl ? SSL_session_reused(c->ssl) : 0; }

int sxtls_conn_has_ticket(sxtls_conn *c) {
    if (!c->ssl) return c->ticket_seen;
    SSL_SESSION *s = SSL_get0_session(c->ssl);
    return s && SSL_SESSION_has_ticket(s);
}

int sxtls_conn_peer_count(sxtls_conn *c) {
    if (!c->ssl) return 0;
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(c->ssl);
    return chain ? sk_X509_num(chain) : 0;
}

int sxtls_conn_peer_cert(sxtls_conn *c, int index, uint8_t *buf, size_t len) {
    if (!c->ssl) return -1;
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(c->ssl);
    if (!chain || index < 0 || index >= sk_X509_num(chain)) return -1;
    X509 *x = sk_X509_value(chain, index);
    int n = i2d_X509(x, NULL);
    if (n <= 0) return -1;
    if (buf && (size_t)n <= len) {
        unsigned char *p = buf;
        i2d_X509(x, &p);
    }
    return n;
}

int sxtls_conn_key_update(sxtls_conn *c, int requested) {
    if (!c->ssl) return 0;
    int ok = SSL_key_update(c->ssl, requested ? SSL_KEY_UPDATE_REQUESTED : SSL_KEY_UPDATE_NOT_REQUESTED);
    /* SSL_do_handshake writes the KeyUpdate now rather than with the next write. */
    if (ok) ok = SSL_do_handshake(c->ssl) == 1;
    ERR_clear_error();
    return ok;
}

const char *sxtls_conn_error(sxtls_conn *c) { return c->error; }

void sxtls_conn_free(sxtls_conn *c) {
    if (!c) return;
    if (c->ssl) SSL_free(c->ssl);
    free(c->in.buf);
    free(c->out.buf);
    OPENSSL_cleanse(&c->rd, sizeof c->rd);
    OPENSSL_cleanse(&c->wr, sizeof c->wr);
    free(c);
}

void sxtls_free(void *p) { OPENSSL_free(p); }

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
    if (!ext) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

int sxtls_x509_create(const uint8_t *subject_key, size_t subject_key_len, const uint8_t *issuer_key,
                      size_t issuer_key_len, const uint8_t *issuer_cert, size_t issuer_cert_len,
                      const char *cn, const char *org, int ca, long days, long backdate_seconds,
                      uint8_t **out, char *err, size_t errlen) {
    int result = -1;
    EVP_PKEY *sk = pkey_from_pkcs8(subject_key, subject_key_len);
    EVP_PKEY *ik = pkey_from_pkcs8(issuer_key, issuer_key_len);
    X509 *issuer = issuer_cert ? x509_from_der(issuer_cert, issuer_cert_len) : NULL;
    X509 *x = X509_new();
    X509_NAME *name = X509_NAME_new();
    BIGNUM *bn = BN_new();
    const char *step = NULL;
    if (!sk || !ik || !x || !name || !bn || (issuer_cert && !issuer)) { step = "keys"; goto done; }
    /* A positive 159-bit random serial, as `openssl req -x509` makes. */
    if (!BN_rand(bn, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY)) { step = "serial"; goto done; }
    if (!X509_set_version(x, 2) || !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x))) { step = "version"; goto done; }
    if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1, 0)) { step = "CN"; goto done; }
    if (org && !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)org, -1, -1, 0)) { step = "O"; goto done; }
    if (!X509_set_subject_name(x, name)) { step = "subject"; goto done; }
    if (!X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name)) { step = "issuer"; goto done; }
    if (!X509_gmtime_adj(X509_getm_notBefore(x), -backdate_seconds)) { step = "notBefore"; goto done; }
    if (!X509_time_adj_ex(X509_getm_notAfter(x), (int)days, 0, NULL)) { step = "notAfter"; goto done; }
    if (!X509_set_pubkey(x, sk)) { step = "pubkey"; goto done; }
    X509 *signer = issuer ? issuer : x;
    if (ca) {
        if (!add_ext(x, signer, NID_subject_key_identifier, "hash") ||
            !add_ext(x, signer, NID_authority_key_identifier, "keyid:always") ||
            !add_ext(x, signer, NID_basic_constraints, "critical,CA:true")) { step = "CA extensions"; goto done; }
    } else {
        if (!add_ext(x, signer, NID_basic_constraints, "CA:FALSE") ||
            !add_ext(x, signer, NID_key_usage, "digitalSignature,nonRepudiation,keyAgreement") ||
            !add_ext(x, signer, NID_ext_key_usage, "serverAuth") ||
            !add_ext(x, signer, NID_subject_key_identifier, "hash") ||
            !add_ext(x, signer, NID_authority_key_identifier, "keyid")) { step = "extensions"; goto done; }
    }
    if (X509_sign(x, ik, NULL) <= 0) { step = "sign"; goto done; }
    result = i2d_X509(x, out);
    if (result <= 0) { step = "encode"; result = -1; }
done:
    if (step) sxtls_take_error(step, err, errlen);
    BN_free(bn);
    X509_NAME_free(name);
    X509_free(x);
    X509_free(issuer);
    EVP_PKEY_free(sk);
    EVP_PKEY_free(ik);
    return result;
}

int sxtls_x509_parse_ok(const uint8_t *der, size_t len) {
    X509 *x = x509_from_der(der, len);
    ERR_clear_error();
    if (!x) return 0;
    X509_free(x);
    return 1;
}

int sxtls_x509_spki(const uint8_t *der, size_t len, uint8_t **out) {
    X509 *x = x509_from_der(der, len);
    if (!x) { ERR_clear_error(); return -1; }
    int n = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), out);
    X509_free(x);
    ERR_clear_error();
    return n > 0 ? n : -1;
}

int sxtls_x509_issued_by(const uint8_t *cert, size_t cert_len, const uint8_t *issuer, size_t issuer_len) {
    X509 *x = x509_from_der(cert, cert_len);
    X509 *i = x509_from_der(issuer, issuer_len);
    int ok = 0;
    if (x && i && X509_NAME_cmp(X509_get_issuer_name(x), X509_get_subject_name(i)) == 0) {
        EVP_PKEY *k = X509_get0_pubkey(i);
        ok = k && X509_verify(x, k) == 1;
    }
    X509_free(x);
    X509_free(i);
    ERR_clear_error();
    return ok;
}

int sxtls_x509_validity(const uint8_t *der, size_t len, int64_t *not_before, int64_t *not_after) {
    X509 *x = x509_from_der(der, len);
    if (!x) { ERR_clear_error(); return 0; }
    struct tm a, b;
    int ok = ASN1_TIME_to_tm(X509_get0_notBefore(x), &a) && ASN1_TIME_to_tm(X509_get0_notAfter(x), &b);
    if (ok) {
        *not_before = (int64_t)timegm(&a);
        *not_after = (int64_t)timegm(&b);
    }
    X509_free(x);
    ERR_clear_error();
    return ok;
}

int sxtls_x509_is_ca(const uint8_t *der, size_t len) {
    X509 *x = x509_from_der(der, len);
    if (!x) { ERR_clear_error(); return 0; }
    uint32_t flags = X509_get_extension_flags(x);
    int ok = (flags & EXFLAG_CA) != 0;
    if (ok && (flags & EXFLAG_KUSAGE)) ok = (X509_get_key_usage(x) & KU_KEY_CERT_SIGN) != 0;
    X509_free(x);
    ERR_clear_error();
    return ok;
}

int sxtls_x509_version(const uint8_t *der, size_t len) {
    X509 *x = x509_from_der(der, len);
    if (!x) { ERR_clear_error(); return -1; }
    int v = (int)X509_get_version(x) + 1;
    X509_free(x);
    return v;
}

int sxtls_x509_common_name(const uint8_t *der, size_t len, char *buf, size_t buflen) {
    X509 *x = x509_from_der(der, len);
    if (!x) { ERR_clear_error(); return -1; }
    int r = -1;
    X509_NAME *name = X509_get_subject_name(x);
    int idx = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
    if (idx >= 0) {
        ASN1_STRING *s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, idx));
        unsigned char *utf8 = NULL;
        int n = ASN1_STRING_to_UTF8(&utf8, s);
        if (n >= 0 && (size_t)n < buflen) {
            memcpy(buf, utf8, (size_t)n);
            buf[n] = 0;
            r = n;
        }
        OPENSSL_free(utf8);
    }
    X509_free(x);
    ERR_clear_error();
    return r;
}
