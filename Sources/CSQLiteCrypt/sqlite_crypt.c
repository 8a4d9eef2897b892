/* Page encryption for SQLite as a VFS shim over the platform VFS.
 *
 * On-disk format of a keyed database (fixed page size 4096, 32 reserved bytes per page, which
 * SQLite leaves unused for exactly this purpose):
 *   page N: AES-256-GCM(key, nonce, aad = N as 4 bytes big-endian) of bytes [0, 4064)
 *           then nonce (12 bytes), tag (16 bytes), 4 zero bytes.
 *   page 1: bytes [0, 16) hold the KDF salt in clear (where "SQLite format 3" would be);
 *           the sealed range starts at 16 and reads give the magic string back.
 * The WAL keeps its 32-byte header and 24-byte frame headers in clear (page numbers, salts and
 * checksums of the plaintext, no content); each frame's page is sealed as above. The rollback
 * journal keeps its headers, page numbers and checksums in clear and seals each page image.
 * Temporary files get AES-256-CTR under a random key that dies with the file.
 *
 * Reads return the reserved bytes as zeros; SQLite never writes them, which is why the WAL
 * frame checksums (computed over the whole page) still verify after a decrypting read. A write
 * whose reserved bytes are not zero is refused rather than risk a frame that fails recovery.
 *
 * The only process-wide state is SQLite's own VFS registry: one static sqlite3_vfs registered
 * once. Keys live in the file objects of each connection. */

#include "sqlite_crypt.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC_PAGE 4096
#define SC_RESERVE 32
#define SC_NONCE 12
#define SC_TAG 16
#define SC_SALT 16
#define SC_KEYLEN 32
#define SC_KDF_ITER 256000
#define SC_WAL_HDR 32
#define SC_FRAME_HDR 24
#define SC_FRAME (SC_FRAME_HDR + SC_PAGE)
#define SC_SEALED (SC_PAGE - SC_RESERVE)
#define SC_IOERR_DATA (SQLITE_IOERR | (32 << 8))

enum { SC_PLAIN = 0, SC_MAIN, SC_WAL, SC_JOURNAL, SC_TEMP };

static const unsigned char sc_magic[16] = "SQLite format 3";

typedef struct ScFile ScFile;
struct ScFile {
    sqlite3_file base; /* must stay first: SQLite sees this */
    int kind;
    ScFile *mainFile; /* WAL and journal: the database they belong to (closed after them) */
    int keyed;        /* main database only */
    unsigned char key[SC_KEYLEN];
    unsigned char salt[SC_SALT];
    unsigned char tempKey[SC_KEYLEN];
    /* The last small write (a frame header or a journal page number), which names the page
     * of the write that follows it. */
    sqlite3_int64 lastHdrOff;
    int lastHdrLen;
    unsigned char lastHdr[SC_FRAME_HDR];
    sqlite3_file *real;
};

#define SC_FILE_SIZE ((sizeof(ScFile) + 15) & ~(size_t)15)

static sqlite3_vfs *sc_orig = NULL;
static sqlite3_vfs sc_vfs;
static sqlite3_io_methods sc_methods;
static pthread_once_t sc_once = PTHREAD_ONCE_INIT;
static int sc_install_rc = SQLITE_ERROR;

/* ---- crypto ---------------------------------------------------------------------------- */

static uint32_t be32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int gcm(int enc, const unsigned char *key, uint32_t pgno, const unsigned char *nonce,
               const unsigned char *in, unsigned char *out, int n, unsigned char *tag) {
    unsigned char aad[4] = {(unsigned char)(pgno >> 24), (unsigned char)(pgno >> 16),
                            (unsigned char)(pgno >> 8), (unsigned char)pgno};
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int ok = c != NULL, len = 0;
    if (enc) {
        ok = ok && EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, key, nonce) == 1;
        ok = ok && EVP_EncryptUpdate(c, NULL, &len, aad, 4) == 1;
        ok = ok && EVP_EncryptUpdate(c, out, &len, in, n) == 1;
        ok = ok && EVP_EncryptFinal_ex(c, out + len, &len) == 1;
        ok = ok && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, SC_TAG, tag) == 1;
    } else {
        ok = ok && EVP_DecryptInit_ex(c, EVP_aes_256_gcm(), NULL, key, nonce) == 1;
        ok = ok && EVP_DecryptUpdate(c, NULL, &len, aad, 4) == 1;
        ok = ok && EVP_DecryptUpdate(c, out, &len, in, n) == 1;
        ok = ok && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, SC_TAG, tag) == 1;
        ok = ok && EVP_DecryptFinal_ex(c, out + len, &len) == 1;
    }
    EVP_CIPHER_CTX_free(c);
    return ok ? 0 : -1;
}

/* Seals plaintext page `pgno` into `out`. Refuses pages this format cannot hold losslessly. */
static int seal_page(const ScFile *m, uint32_t pgno, const unsigned char *in, unsigned char *out) {
    for (int i = SC_SEALED; i < SC_PAGE; i++)
        if (in[i] != 0) return SQLITE_IOERR_WRITE;
    int start = 0;
    if (pgno == 1) {
        int ps = (in[16] << 8) | in[17];
        if (memcmp(in, sc_magic, 16) != 0 || ps != SC_PAGE || in[20] != SC_RESERVE)
            return SQLITE_IOERR_WRITE;
        memcpy(out, m->salt, SC_SALT);
        start = SC_SALT;
    }
    unsigned char *nonce = out + SC_SEALED, *tag = nonce + SC_NONCE;
    if (RAND_bytes(nonce, SC_NONCE) != 1) return SQLITE_IOERR_WRITE;
    if (gcm(1, m->key, pgno, nonce, in + start, out + start, SC_SEALED - start, tag) != 0)
        return SQLITE_IOERR_WRITE;
    memset(out + SC_SEALED + SC_NONCE + SC_TAG, 0, SC_RESERVE - SC_NONCE - SC_TAG);
    return SQLITE_OK;
}

/* Opens sealed page `pgno`; -1 when it does not authenticate under this key. */
static int open_page(const ScFile *m, uint32_t pgno, const unsigned char *in, unsigned char *out) {
    int start = pgno == 1 ? SC_SALT : 0;
    unsigned char tag[SC_TAG];
    memcpy(tag, in + SC_SEALED + SC_NONCE, SC_TAG);
    if (gcm(0, m->key, pgno, in + SC_SEALED, in + start, out + start, SC_SEALED - start, tag) != 0)
        return -1;
    if (pgno == 1) memcpy(out, sc_magic, 16);
    memset(out + SC_SEALED, 0, SC_RESERVE);
    return 0;
}

/* AES-256-CTR keystream at byte offset `off`, for temporary files. */
static int ctr_xor(const unsigned char *key, sqlite3_int64 off, unsigned char *buf, int n) {
    unsigned char iv[16] = {0}, skip[16] = {0};
    uint64_t blk = (uint64_t)off / 16;
    for (int i = 0; i < 8; i++) iv[15 - i] = (unsigned char)(blk >> (8 * i));
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int ok = c != NULL, len = 0;
    ok = ok && EVP_EncryptInit_ex(c, EVP_aes_256_ctr(), NULL, key, iv) == 1;
    if (off % 16) ok = ok && EVP_EncryptUpdate(c, skip, &len, skip, (int)(off % 16)) == 1;
    ok = ok && EVP_EncryptUpdate(c, buf, &len, buf, n) == 1;
    EVP_CIPHER_CTX_free(c);
    return ok ? 0 : -1;
}

static const ScFile *key_owner(const ScFile *p) {
    if (p->kind == SC_MAIN) return p->keyed ? p : NULL;
    if ((p->kind == SC_WAL || p->kind == SC_JOURNAL) && p->mainFile && p->mainFile->keyed)
        return p->mainFile;
    return NULL;
}

/* ---- raw helpers ----------------------------------------------------------------------- */

static int raw_read(ScFile *p, void *buf, int n, sqlite3_int64 off) {
    return p->real->pMethods->xRead(p->real, buf, n, off);
}

static sqlite3_int64 raw_size(ScFile *p) {
    sqlite3_int64 sz = 0;
    if (p->real->pMethods->xFileSize(p->real, &sz) != SQLITE_OK) return -1;
    return sz;
}

/* The `len` bytes just before `off`: from the last small write when it was exactly there. */
static int preceding(ScFile *p, sqlite3_int64 off, int len, unsigned char *out) {
    if (p->lastHdrLen >= len && p->lastHdrOff + p->lastHdrLen == off) {
        memcpy(out, p->lastHdr + p->lastHdrLen - len, len);
        return SQLITE_OK;
    }
    if (off < len) return SQLITE_IOERR_WRITE;
    return raw_read(p, out, len, off - len);
}

/* ---- main database --------------------------------------------------------------------- */

static int main_read(ScFile *p, const ScFile *m, unsigned char *buf, int n, sqlite3_int64 off) {
    unsigned char raw[SC_PAGE], plain[SC_PAGE];
    int rc = SQLITE_OK;
    for (sqlite3_int64 pg = off / SC_PAGE; pg * SC_PAGE < off + n; pg++) {
        sqlite3_int64 pOff = pg * SC_PAGE;
        sqlite3_int64 s = off > pOff ? off : pOff;
        sqlite3_int64 e = off + n < pOff + SC_PAGE ? off + n : pOff + SC_PAGE;
        int r = raw_read(p, raw, SC_PAGE, pOff);
        if (r == SQLITE_IOERR_SHORT_READ) {
            /* Beyond the end (or a file too short to be ours): zeros, which SQLite reads as
             * "no page" or, for a non-empty file, as "not a database". */
            memset(buf + (s - off), 0, (size_t)(e - s));
            rc = SQLITE_IOERR_SHORT_READ;
            continue;
        }
        if (r != SQLITE_OK) return r;
        if (open_page(m, (uint32_t)(pg + 1), raw, plain) != 0) {
            if (pg != 0) return SC_IOERR_DATA;
            memset(plain, 0, SC_PAGE); /* page 1 that fails: SQLITE_NOTADB, never a crash */
        }
        memcpy(buf + (s - off), plain + (s - pOff), (size_t)(e - s));
    }
    return rc;
}

static int main_write(ScFile *p, const ScFile *m, const unsigned char *buf, int n, sqlite3_int64 off) {
    if (off % SC_PAGE != 0 || n % SC_PAGE != 0) return SQLITE_IOERR_WRITE;
    unsigned char out[SC_PAGE];
    for (int i = 0; i < n; i += SC_PAGE) {
        int rc = seal_page(m, (uint32_t)((off + i) / SC_PAGE + 1), buf + i, out);
        if (rc != SQLITE_OK) return rc;
        rc = p->real->pMethods->xWrite(p->real, out, SC_PAGE, off + i);
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* ---- WAL ------------------------------------------------------------------------------- */

static int wal_read(ScFile *p, const ScFile *m, unsigned char *buf, int n, sqlite3_int64 off) {
    int rc = raw_read(p, buf, n, off);
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) return rc;
    sqlite3_int64 size = rc == SQLITE_IOERR_SHORT_READ ? raw_size(p) : off + n;
    if (off + n <= SC_WAL_HDR + SC_FRAME_HDR) return rc;
    sqlite3_int64 k = off < SC_WAL_HDR ? 0 : (off - SC_WAL_HDR) / SC_FRAME;
    unsigned char frame[SC_FRAME], plain[SC_PAGE];
    for (;; k++) {
        sqlite3_int64 fOff = SC_WAL_HDR + k * SC_FRAME, pOff = fOff + SC_FRAME_HDR;
        if (pOff >= off + n) break;
        sqlite3_int64 s = off > pOff ? off : pOff;
        sqlite3_int64 e = off + n < pOff + SC_PAGE ? off + n : pOff + SC_PAGE;
        if (s >= e) continue;
        if (pOff + SC_PAGE > size) continue; /* a frame beyond the end stays zero */
        const unsigned char *f;
        if (fOff >= off && pOff + SC_PAGE <= off + n) {
            f = buf + (fOff - off);
        } else {
            int r = raw_read(p, frame, SC_FRAME, fOff);
            if (r == SQLITE_IOERR_SHORT_READ) continue;
            if (r != SQLITE_OK) return r;
            f = frame;
        }
        /* A torn or foreign frame reads as zeros: its checksum then fails, and SQLite ends
         * the log there, exactly as it does for a frame cut short by a crash. */
        if (open_page(m, be32(f), f + SC_FRAME_HDR, plain) != 0) memset(plain, 0, SC_PAGE);
        memcpy(buf + (s - off), plain + (s - pOff), (size_t)(e - s));
    }
    return rc;
}

static int wal_write(ScFile *p, const ScFile *m, const unsigned char *buf, int n, sqlite3_int64 off) {
    unsigned char *out = NULL;
    int rc = SQLITE_OK;
    if (off + n > SC_WAL_HDR + SC_FRAME_HDR) {
        sqlite3_int64 k = off < SC_WAL_HDR ? 0 : (off - SC_WAL_HDR) / SC_FRAME;
        for (;; k++) {
            sqlite3_int64 fOff = SC_WAL_HDR + k * SC_FRAME, pOff = fOff + SC_FRAME_HDR;
            if (pOff >= off + n) break;
            if (pOff + SC_PAGE <= off) continue;
            /* Only whole pages: SQLite writes a frame's page in one call. */
            if (pOff < off || pOff + SC_PAGE > off + n) { rc = SQLITE_IOERR_WRITE; break; }
            unsigned char hdr[SC_FRAME_HDR];
            if (fOff >= off) memcpy(hdr, buf + (fOff - off), SC_FRAME_HDR);
            else if ((rc = preceding(p, pOff, SC_FRAME_HDR, hdr)) != SQLITE_OK) break;
            if (!out) {
                out = malloc((size_t)n);
                if (!out) { rc = SQLITE_NOMEM; break; }
                memcpy(out, buf, (size_t)n);
            }
            rc = seal_page(m, be32(hdr), buf + (pOff - off), out + (pOff - off));
            if (rc != SQLITE_OK) break;
        }
    }
    if (rc == SQLITE_OK) rc = p->real->pMethods->xWrite(p->real, out ? out : buf, n, off);
    free(out);
    return rc;
}

/* ---- rollback journal ------------------------------------------------------------------ */

/* Page images are the only page-sized records at offsets that are not sector-aligned: each
 * follows its 4-byte page number, while headers start on sector boundaries. */
static int is_journal_page(int n, sqlite3_int64 off) { return n == SC_PAGE && off % 512 != 0; }

static int journal_read(ScFile *p, const ScFile *m, unsigned char *buf, int n, sqlite3_int64 off) {
    int rc = raw_read(p, buf, n, off);
    if (rc != SQLITE_OK || !is_journal_page(n, off)) return rc;
    unsigned char pg[4], plain[SC_PAGE];
    int r = raw_read(p, pg, 4, off - 4);
    if (r != SQLITE_OK) return r == SQLITE_IOERR_SHORT_READ ? SQLITE_IOERR_READ : r;
    /* A record that does not open fails the journal's own checksum: playback stops there. */
    if (open_page(m, be32(pg), buf, plain) != 0) memset(plain, 0, SC_PAGE);
    memcpy(buf, plain, SC_PAGE);
    return SQLITE_OK;
}

static int journal_write(ScFile *p, const ScFile *m, const unsigned char *buf, int n, sqlite3_int64 off) {
    if (!is_journal_page(n, off)) return p->real->pMethods->xWrite(p->real, buf, n, off);
    unsigned char pg[4], out[SC_PAGE];
    int rc = preceding(p, off, 4, pg);
    if (rc != SQLITE_OK) return SQLITE_IOERR_WRITE;
    rc = seal_page(m, be32(pg), buf, out);
    if (rc != SQLITE_OK) return rc;
    return p->real->pMethods->xWrite(p->real, out, SC_PAGE, off);
}

/* ---- io methods ------------------------------------------------------------------------ */

static int scClose(sqlite3_file *f) {
    ScFile *p = (ScFile *)f;
    int rc = p->real->pMethods ? p->real->pMethods->xClose(p->real) : SQLITE_OK;
    OPENSSL_cleanse(p->key, sizeof p->key);
    OPENSSL_cleanse(p->tempKey, sizeof p->tempKey);
    return rc;
}

static int scRead(sqlite3_file *f, void *buf, int n, sqlite3_int64 off) {
    ScFile *p = (ScFile *)f;
    if (p->kind == SC_TEMP) {
        int rc = raw_read(p, buf, n, off);
        if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) return rc;
        sqlite3_int64 valid = n;
        if (rc == SQLITE_IOERR_SHORT_READ) {
            sqlite3_int64 sz = raw_size(p);
            valid = sz <= off ? 0 : (sz - off < n ? sz - off : n);
        }
        if (valid > 0 && ctr_xor(p->tempKey, off, buf, (int)valid) != 0) return SQLITE_IOERR_READ;
        return rc;
    }
    const ScFile *m = key_owner(p);
    if (!m) return raw_read(p, buf, n, off);
    switch (p->kind) {
    case SC_MAIN: return main_read(p, m, buf, n, off);
    case SC_WAL: return wal_read(p, m, buf, n, off);
    default: return journal_read(p, m, buf, n, off);
    }
}

static int scWrite(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off) {
    ScFile *p = (ScFile *)f;
    if (p->kind == SC_TEMP) {
        unsigned char *out = malloc((size_t)n);
        if (!out) return SQLITE_NOMEM;
        memcpy(out, buf, (size_t)n);
        int rc = ctr_xor(p->tempKey, off, out, n) == 0
                     ? p->real->pMethods->xWrite(p->real, out, n, off) : SQLITE_IOERR_WRITE;
        free(out);
        return rc;
    }
    const ScFile *m = key_owner(p);
    if (n <= SC_FRAME_HDR) {
        p->lastHdrOff = off;
        p->lastHdrLen = n;
        memcpy(p->lastHdr, buf, (size_t)n);
    }
    if (!m) return p->real->pMethods->xWrite(p->real, buf, n, off);
    switch (p->kind) {
    case SC_MAIN: return main_write(p, m, buf, n, off);
    case SC_WAL: return wal_write(p, m, buf, n, off);
    default: return journal_write(p, m, buf, n, off);
    }
}

static int scTruncate(sqlite3_file *f, sqlite3_int64 size) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xTruncate(p->real, size);
}
static int scSync(sqlite3_file *f, int flags) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xSync(p->real, flags);
}
static int scFileSize(sqlite3_file *f, sqlite3_int64 *pSize) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xFileSize(p->real, pSize);
}
static int scLock(sqlite3_file *f, int l) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xLock(p->real, l);
}
static int scUnlock(sqlite3_file *f, int l) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xUnlock(p->real, l);
}
static int scCheckReservedLock(sqlite3_file *f, int *pResOut) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xCheckReservedLock(p->real, pResOut);
}
static int scFileControl(sqlite3_file *f, int op, void *pArg) {
    ScFile *p = (ScFile *)f;
    if (op == SQLITE_FCNTL_MMAP_SIZE) {
        /* No memory-mapped reads: they would hand SQLite the sealed bytes. */
        if (pArg) *(sqlite3_int64 *)pArg = 0;
        return SQLITE_OK;
    }
    return p->real->pMethods->xFileControl(p->real, op, pArg);
}
static int scSectorSize(sqlite3_file *f) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xSectorSize(p->real);
}
static int scDeviceCharacteristics(sqlite3_file *f) {
    ScFile *p = (ScFile *)f;
    /* Power-safe overwrite keeps SQLite from padding or splitting WAL frames at sectors, so
     * every page reaches xWrite whole. Batch-atomic writes would bypass the journal format. */
    int dc = p->real->pMethods->xDeviceCharacteristics(p->real);
    return (dc | SQLITE_IOCAP_POWERSAFE_OVERWRITE) & ~SQLITE_IOCAP_BATCH_ATOMIC;
}
static int scShmMap(sqlite3_file *f, int pg, int pgsz, int ext, void volatile **pp) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xShmMap(p->real, pg, pgsz, ext, pp);
}
static int scShmLock(sqlite3_file *f, int offset, int n, int flags) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xShmLock(p->real, offset, n, flags);
}
static void scShmBarrier(sqlite3_file *f) {
    ScFile *p = (ScFile *)f;
    p->real->pMethods->xShmBarrier(p->real);
}
static int scShmUnmap(sqlite3_file *f, int deleteFlag) {
    ScFile *p = (ScFile *)f;
    return p->real->pMethods->xShmUnmap(p->real, deleteFlag);
}

/* ---- vfs ------------------------------------------------------------------------------- */

static int scOpen(sqlite3_vfs *vfs, sqlite3_filename zName, sqlite3_file *f, int flags, int *pOutFlags) {
    (void)vfs;
    ScFile *p = (ScFile *)f;
    memset(p, 0, sizeof(ScFile));
    p->real = (sqlite3_file *)((char *)p + SC_FILE_SIZE);
    memset(p->real, 0, (size_t)sc_orig->szOsFile);
    int rc = sc_orig->xOpen(sc_orig, zName, p->real, flags, pOutFlags);
    if (rc != SQLITE_OK) {
        if (p->real->pMethods) p->real->pMethods->xClose(p->real);
        p->base.pMethods = NULL;
        return rc;
    }
    if (flags & SQLITE_OPEN_MAIN_DB) {
        p->kind = SC_MAIN;
    } else if (flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL)) {
        p->kind = (flags & SQLITE_OPEN_WAL) ? SC_WAL : SC_JOURNAL;
        sqlite3_file *mf = zName ? sqlite3_database_file_object(zName) : NULL;
        p->mainFile = (mf && mf->pMethods == &sc_methods) ? (ScFile *)mf : NULL;
    } else if (flags & (SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_SUBJOURNAL |
                        SQLITE_OPEN_TRANSIENT_DB)) {
        p->kind = SC_TEMP;
        if (RAND_bytes(p->tempKey, SC_KEYLEN) != 1) {
            p->real->pMethods->xClose(p->real);
            p->base.pMethods = NULL;
            return SQLITE_CANTOPEN;
        }
    } else {
        p->kind = SC_PLAIN;
    }
    p->base.pMethods = &sc_methods;
    return SQLITE_OK;
}

static int scDelete(sqlite3_vfs *v, const char *z, int syncDir) { (void)v; return sc_orig->xDelete(sc_orig, z, syncDir); }
static int scAccess(sqlite3_vfs *v, const char *z, int flags, int *pRes) { (void)v; return sc_orig->xAccess(sc_orig, z, flags, pRes); }
static int scFullPathname(sqlite3_vfs *v, const char *z, int n, char *out) { (void)v; return sc_orig->xFullPathname(sc_orig, z, n, out); }
static void *scDlOpen(sqlite3_vfs *v, const char *z) { (void)v; return sc_orig->xDlOpen(sc_orig, z); }
static void scDlError(sqlite3_vfs *v, int n, char *z) { (void)v; sc_orig->xDlError(sc_orig, n, z); }
static void (*scDlSym(sqlite3_vfs *v, void *h, const char *z))(void) { (void)v; return sc_orig->xDlSym(sc_orig, h, z); }
static void scDlClose(sqlite3_vfs *v, void *h) { (void)v; sc_orig->xDlClose(sc_orig, h); }
static int scRandomness(sqlite3_vfs *v, int n, char *z) { (void)v; return sc_orig->xRandomness(sc_orig, n, z); }
static int scSleep(sqlite3_vfs *v, int us) { (void)v; return sc_orig->xSleep(sc_orig, us); }
static int scCurrentTime(sqlite3_vfs *v, double *t) { (void)v; return sc_orig->xCurrentTime(sc_orig, t); }
static int scGetLastError(sqlite3_vfs *v, int n, char *z) { (void)v; return sc_orig->xGetLastError ? sc_orig->xGetLastError(sc_orig, n, z) : 0; }
static int scCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *t) { (void)v; return sc_orig->xCurrentTimeInt64(sc_orig, t); }

static void sc_do_install(void) {
    sc_orig = sqlite3_vfs_find(NULL);
    if (!sc_orig || sc_orig->iVersion < 2 || !sc_orig->xCurrentTimeInt64) { sc_install_rc = SQLITE_ERROR; return; }
    memset(&sc_methods, 0, sizeof sc_methods);
    sc_methods.iVersion = 2; /* no xFetch: memory-mapped pages would bypass decryption */
    sc_methods.xClose = scClose;
    sc_methods.xRead = scRead;
    sc_methods.xWrite = scWrite;
    sc_methods.xTruncate = scTruncate;
    sc_methods.xSync = scSync;
    sc_methods.xFileSize = scFileSize;
    sc_methods.xLock = scLock;
    sc_methods.xUnlock = scUnlock;
    sc_methods.xCheckReservedLock = scCheckReservedLock;
    sc_methods.xFileControl = scFileControl;
    sc_methods.xSectorSize = scSectorSize;
    sc_methods.xDeviceCharacteristics = scDeviceCharacteristics;
    sc_methods.xShmMap = scShmMap;
    sc_methods.xShmLock = scShmLock;
    sc_methods.xShmBarrier = scShmBarrier;
    sc_methods.xShmUnmap = scShmUnmap;

    memset(&sc_vfs, 0, sizeof sc_vfs);
    sc_vfs.iVersion = 2;
    sc_vfs.szOsFile = (int)SC_FILE_SIZE + sc_orig->szOsFile;
    sc_vfs.mxPathname = sc_orig->mxPathname;
    sc_vfs.zName = "simplex-crypt";
    sc_vfs.xOpen = scOpen;
    sc_vfs.xDelete = scDelete;
    sc_vfs.xAccess = scAccess;
    sc_vfs.xFullPathname = scFullPathname;
    sc_vfs.xDlOpen = scDlOpen;
    sc_vfs.xDlError = scDlError;
    sc_vfs.xDlSym = scDlSym;
    sc_vfs.xDlClose = scDlClose;
    sc_vfs.xRandomness = scRandomness;
    sc_vfs.xSleep = scSleep;
    sc_vfs.xCurrentTime = scCurrentTime;
    sc_vfs.xGetLastError = scGetLastError;
    sc_vfs.xCurrentTimeInt64 = scCurrentTimeInt64;
    sc_install_rc = sqlite3_vfs_register(&sc_vfs, 1);
}

int sqlcrypt_install(void) {
    pthread_once(&sc_once, sc_do_install);
    return sc_install_rc;
}

int sqlcrypt_page_size(void) { return SC_PAGE; }
int sqlcrypt_reserve_bytes(void) { return SC_RESERVE; }

static ScFile *main_file(sqlite3 *db, const char *zDb) {
    sqlite3_file *f = NULL;
    if (sqlite3_file_control(db, zDb ? zDb : "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK) return NULL;
    if (!f || f->pMethods != &sc_methods) return NULL;
    ScFile *p = (ScFile *)f;
    return p->kind == SC_MAIN ? p : NULL;
}

int sqlcrypt_is_keyed(sqlite3 *db, const char *zDb) {
    ScFile *p = main_file(db, zDb);
    return p && p->keyed;
}

int sqlcrypt_set_key(sqlite3 *db, const char *zDb, const void *pass, int nPass) {
    if (nPass <= 0 || !pass) return SQLITE_MISUSE;
    ScFile *p = main_file(db, zDb);
    if (!p || p->keyed) return SQLITE_MISUSE;
    sqlite3_int64 size = raw_size(p);
    if (size < 0) return SQLITE_IOERR;
    unsigned char page[SC_PAGE], plain[SC_PAGE];
    const unsigned char *check = NULL;
    if (size >= SC_PAGE) {
        if (raw_read(p, page, SC_PAGE, 0) != SQLITE_OK) return SQLITE_IOERR;
        check = page;
    } else if (size > 0) {
        return SQLITE_NOTADB; /* shorter than one page: not a database of ours */
    }
    /* An empty file is a new database (SQLite itself drops a WAL beside an empty file). */
    if (check) memcpy(p->salt, check, SC_SALT);
    else if (RAND_bytes(p->salt, SC_SALT) != 1) return SQLITE_ERROR;
    if (PKCS5_PBKDF2_HMAC((const char *)pass, nPass, p->salt, SC_SALT, SC_KDF_ITER, EVP_sha512(),
                          SC_KEYLEN, p->key) != 1)
        return SQLITE_ERROR;
    if (check && open_page(p, 1, check, plain) != 0) {
        OPENSSL_cleanse(p->key, sizeof p->key);
        return SQLITE_NOTADB;
    }
    OPENSSL_cleanse(plain, sizeof plain);
    p->keyed = 1;
    /* Room for nonce and tag in every page; it only takes effect on a new database. */
    int reserve = SC_RESERVE;
    sqlite3_file_control(db, zDb ? zDb : "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
    return SQLITE_OK;
}
