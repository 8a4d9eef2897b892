#ifndef SIMPLEX_SQLITE_CRYPT_H
#define SIMPLEX_SQLITE_CRYPT_H

/* Encryption at rest for the chat and agent databases: an SQLite VFS that seals every page of
 * the database, its WAL and its rollback journal with AES-256-GCM (docs/protocol-notes.md,
 * "Database encryption"). Files without a key pass through unchanged. */

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the VFS as SQLite's default, once per process. Returns SQLITE_OK. */
int sqlcrypt_install(void);

/* Sets the passphrase of database `zDb` ("main" when NULL) on a connection that has read
 * nothing yet. The key is PBKDF2-HMAC-SHA512 of the passphrase with the file's 16-byte salt.
 * Returns SQLITE_NOTADB when the file exists and the key does not open it. */
int sqlcrypt_set_key(sqlite3 *db, const char *zDb, const void *pass, int nPass);

/* 1 when the main database of `db` is keyed through this VFS. */
int sqlcrypt_is_keyed(sqlite3 *db, const char *zDb);

/* Constants of the page format, exposed for tests. */
int sqlcrypt_page_size(void);
int sqlcrypt_reserve_bytes(void);

#ifdef __cplusplus
}
#endif

#endif
