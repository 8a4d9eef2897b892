/*
 * simplex.h - the C ABI of libsimplex (SimpleX-Swift's build of simplex-chat's Mobile.hs
 * exports, seed 002 §2). Build: `swift build --product simplex` -> .build/debug/libsimplex.so.
 *
 * Memory: every `char *` these functions return is a NUL-terminated UTF-8 buffer from malloc;
 * the caller frees it with free(). chat_read_file returns a malloc'd binary buffer (see there).
 * String arguments are NUL-terminated UTF-8; a NULL string argument reads as "" (never a crash).
 *
 * Threads: any number of controllers per process, and calls from any threads at once. Calls
 * block the calling thread; do not call them from a Swift concurrency (async) context.
 *
 * Handles: chat_ctrl is an opaque pointer-sized handle (a small integer, never reused; it is not
 * a pointer to dereference). A NULL or unknown handle never crashes:
 *   chat_send_cmd(_retry) answers {"error":{"type":"error","errorType":{"type":"chatNotStarted"}}},
 *   chat_recv_msg_wait answers "", chat_close_store / chat_reopen_store answer an error message.
 *
 * Database encryption: a non-empty key to chat_migrate_init(_key) opens (or creates) both
 * databases sealed with it (AES-256-GCM pages, docs/protocol-notes.md); a wrong key is
 * {"type":"errorNotADatabase",...}. "/_db encryption {"currentKey":..,"newKey":..}" changes it.
 *
 * Environment: SIMPLEX_SMP_SERVERS, read by chat_migrate_init(_key): comma-separated smp://
 * addresses used as the default SMP relays of the new controller when its user configured none
 * (an address with several hosts, smp://<key>@host1,host2:port, is kept whole).
 *
 * Differences from the Haskell library:
 *   - chat_migrate_init_key ignores keepKey and backgroundMode.
 *   - chat_close_store releases both database files and stops the network; commands answer
 *     errorDatabase until chat_reopen_store, which reopens them and resumes a running chat.
 *   - The encrypted database format is this project's (not SQLCipher's): files are not
 *     interchangeable with the Haskell build's.
 *   - chat_write_file / chat_encrypt_file accept any ctrl (it only supplied randomness).
 *   - Encrypted local files are handled in one piece in memory, up to 1 GiB.
 *   - hs_init / hs_init_with_rtsopts do nothing (there is no Haskell runtime).
 */
#ifndef SIMPLEX_H
#define SIMPLEX_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void *chat_ctrl;

/* No-ops, so hosts written for the GHC build load this library unchanged. */
void hs_init(int *argc, char **argv[]);
void hs_init_with_rtsopts(int *argc, char **argv[]);

/*
 * Opens (creating or migrating) the chat database <path>_chat.db (the agent database
 * <path>_agent.db is opened when the chat starts). key: SQLCipher key, "" for none. confirm:
 * "yesUp", "yesUpDown", "console" or "error". Answers DBMigrationResult JSON: {"type":"ok"},
 * {"type":"invalidConfirmation"}, {"type":"errorNotADatabase","dbFile":...},
 * {"type":"errorMigration","dbFile":...,"migrationError":...} or
 * {"type":"errorSQL","dbFile":...,"migrationSQLError":...}. *ctrl is set only when ok.
 */
char *chat_migrate_init(const char *path, const char *key, const char *confirm, chat_ctrl *ctrl);
char *chat_migrate_init_key(const char *path, const char *key, int keepKey, const char *confirm,
                            int backgroundMode, chat_ctrl *ctrl);

/* Runs one chat command; answers {"result":{...}} or {"error":{...}}. retryNum is informational. */
char *chat_send_cmd(chat_ctrl ctrl, const char *cmd);
char *chat_send_cmd_retry(chat_ctrl ctrl, const char *cmd, int retryNum);

/*
 * The next event, {"result":{"type":...}}, waiting up to `wait` microseconds; "" when none came
 * in time (0: do not wait; negative: wait until an event comes or the controller is closed).
 */
char *chat_recv_msg_wait(chat_ctrl ctrl, int wait);

/* Stops the chat and closes its databases; "" on success, else an error message. */
char *chat_close_store(chat_ctrl ctrl);
/* Not supported: always an error message. */
char *chat_reopen_store(chat_ctrl ctrl);

/* {"formattedText":[{"text":...,"format":{...}},...]}, or {} when nothing is formatted. */
char *chat_parse_markdown(const char *str);

/*
 * Parses an smp:// or xftp:// server address, smp://<keyHash>[:<password>]@<host>[,<host>...][:<port>]:
 * {"serverAddress":{"serverProtocol":"smp","hostnames":["..."],"port":"5223" or "" when absent,
 *   "keyHash":"<base64url, padded>","basicAuth":"<password>" or ""},"parseError":""}
 * or {"parseError":"<reason>"}.
 */
char *chat_parse_server(const char *str);

/*
 * As simplex-chat (Mobile.hs chatPasswordHash): base64url(SHA-512(pwd ++ base64url-decode(salt))),
 * padded; "" when salt is not base64url. (It is a SHA-512 hash, not bcrypt.)
 */
char *chat_password_hash(const char *pwd, const char *salt);

/*
 * Local encrypted files (simplexmq Crypto/File.hs format): XSalsa20-Poly1305 with a random 32-byte
 * key and 24-byte nonce; the file is the ciphertext followed by the 16-byte Poly1305 tag.
 * chat_write_file and chat_encrypt_file answer
 *   {"type":"result","cryptoArgs":{"fileKey":"<base64url>","fileNonce":"<base64url>"}}
 * or {"type":"error","writeError":"<reason>"}.
 */
char *chat_write_file(chat_ctrl ctrl, const char *path, char *data, int len);
/*
 * Decrypts a file: a malloc'd buffer (free() it) holding either byte 0, the little-endian uint32
 * plaintext length and the plaintext, or byte 1 followed by a NUL-terminated error message.
 */
char *chat_read_file(const char *path, const char *key, const char *nonce);
char *chat_encrypt_file(chat_ctrl ctrl, const char *fromPath, const char *toPath);
/* "" on success, else an error message. */
char *chat_decrypt_file(const char *fromPath, const char *key, const char *nonce, const char *toPath);

#ifdef __cplusplus
}
#endif

#endif /* SIMPLEX_H */
