/*
 * C test of libsimplex (include/simplex.h): two controllers talk over a real SMP relay.
 * Needs SIMPLEX_SMP_SERVERS=smp://... (Tests/CABI/run.sh starts a relay and sets it).
 * Build: gcc -Wall -Werror -Iinclude Tests/CABI/cabi_test.c -L.build/debug -lsimplex \
 *          -Wl,-rpath,$PWD/.build/debug -o cabi_test
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "simplex.h"

static int failures = 0;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, "\n");                               \
            failures++;                                          \
        }                                                        \
    } while (0)

#define REQUIRE(cond, ...)          \
    do {                            \
        if (!(cond)) {              \
            CHECK(cond, __VA_ARGS__); \
            exit(1);                \
        }                           \
    } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The string value of the first "key":"..." in json, malloc'd (NULL when absent). */
static char *json_string(const char *json, const char *key) {
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(json, pat);
    if (!p) return NULL;
    p += strlen(pat);
    char *out = malloc(strlen(p) + 1), *o = out;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1]) p++;
        *o++ = *p++;
    }
    *o = 0;
    return out;
}

/* The integer after the first "key": found after `after` (or anywhere when NULL); -1 if absent. */
static long json_int(const char *json, const char *after, const char *key) {
    if (after) {
        json = strstr(json, after);
        if (!json) return -1;
    }
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* Runs a command; requires a {"result":...} answer, which the caller frees. */
static char *cmd(chat_ctrl c, const char *name, const char *command) {
    char *r = chat_send_cmd(c, command);
    REQUIRE(r != NULL, "%s %s: NULL", name, command);
    REQUIRE(strncmp(r, "{\"result\":", 10) == 0, "%s %s: %s", name, command, r);
    return r;
}

/* Waits up to `timeout` s for an event of `type` whose JSON contains `needle` (if given). */
static char *wait_event(chat_ctrl c, const char *name, const char *type, const char *needle, double timeout) {
    char pat[128];
    snprintf(pat, sizeof pat, "\"type\":\"%s\"", type);
    double deadline = now() + timeout;
    while (now() < deadline) {
        char *e = chat_recv_msg_wait(c, 500000);
        REQUIRE(e != NULL, "%s: chat_recv_msg_wait returned NULL", name);
        if (*e && strstr(e, pat) && (!needle || strstr(e, needle))) return e;
        free(e);
    }
    REQUIRE(0, "%s: no %s event in %.0f s", name, type, timeout);
    return NULL;
}

static chat_ctrl open_client(const char *dir, const char *name, const char *key) {
    char prefix[512], create[256];
    snprintf(prefix, sizeof prefix, "%s/%s", dir, name);
    chat_ctrl c = NULL;
    char *r = chat_migrate_init_key(prefix, key, 0, "yesUp", 0, &c);
    REQUIRE(r && strcmp(r, "{\"type\":\"ok\"}") == 0, "%s: chat_migrate_init: %s", name, r ? r : "NULL");
    REQUIRE(c != NULL, "%s: ctrl not set", name);
    free(r);
    snprintf(create, sizeof create,
             "/_create user {\"profile\":{\"displayName\":\"%s\",\"fullName\":\"\"},\"pastTimestamp\":false}", name);
    free(cmd(c, name, create));
    free(cmd(c, name, "/_start"));
    return c;
}

static void test_errors(const char *dir) {
    /* Unknown, NULL handles. */
    char *r = chat_send_cmd((chat_ctrl)(uintptr_t)0x7fff1234, "/users");
    CHECK(r && strstr(r, "\"error\"") && strstr(r, "chatNotStarted"), "unknown ctrl: %s", r);
    free(r);
    r = chat_send_cmd(NULL, NULL);
    CHECK(r && strstr(r, "chatNotStarted"), "NULL ctrl: %s", r);
    free(r);
    r = chat_recv_msg_wait((chat_ctrl)(uintptr_t)0x7fff1234, 1000);
    CHECK(r && *r == 0, "recv on unknown ctrl: %s", r);
    free(r);
    r = chat_close_store((chat_ctrl)(uintptr_t)0x7fff1234);
    CHECK(r && *r, "close of unknown ctrl should answer an error");
    free(r);
    r = chat_reopen_store(NULL);
    CHECK(r && *r, "reopen should answer an error");
    free(r);

    /* A file that is not a database. */
    char prefix[512], file[600];
    snprintf(prefix, sizeof prefix, "%s/garbage", dir);
    snprintf(file, sizeof file, "%s_chat.db", prefix);
    FILE *f = fopen(file, "wb");
    REQUIRE(f, "create %s", file);
    for (int i = 0; i < 4096; i++) fputc((i * 7919) & 0xff, f);
    fclose(f);
    chat_ctrl c = NULL;
    r = chat_migrate_init(prefix, "", "yesUp", &c);
    CHECK(r && strstr(r, "\"type\":\"errorNotADatabase\""), "garbage db: %s", r);
    CHECK(c == NULL, "ctrl set on failure");
    free(r);
    r = chat_migrate_init(prefix, "", "maybe", &c);
    CHECK(r && strstr(r, "invalidConfirmation"), "bad confirm: %s", r);
    free(r);
    r = chat_migrate_init(NULL, NULL, NULL, NULL);
    CHECK(r && strstr(r, "\"type\""), "NULL args: %s", r);
    free(r);
}

static void test_utilities(const char *server) {
    char *r = chat_parse_markdown("hello *bold* world");
    CHECK(r && strstr(r, "\"formattedText\":[") && strstr(r, "{\"format\":{\"type\":\"bold\"},\"text\":\"bold\"}"),
          "markdown: %s", r);
    free(r);
    r = chat_parse_markdown("plain");
    CHECK(r && strcmp(r, "{}") == 0, "plain markdown: %s", r);
    free(r);
    free(chat_parse_markdown(NULL));

    r = chat_parse_server(server);
    CHECK(r && strstr(r, "\"serverProtocol\":\"smp\"") && strstr(r, "\"hostnames\":[\"127.0.0.1\"]") &&
              strstr(r, "\"parseError\":\"\""),
          "parse server: %s", r);
    free(r);
    r = chat_parse_server("smp://nope");
    CHECK(r && strstr(r, "\"parseError\":\"bad") && !strstr(r, "serverAddress"), "bad server: %s", r);
    free(r);

    r = chat_password_hash("password", "c2FsdA==");
    CHECK(r && strlen(r) == 88, "password hash: %s", r);
    free(r);
    r = chat_password_hash("password", "!!");
    CHECK(r && *r == 0, "bad salt: %s", r);
    free(r);
}

static void test_files(const char *dir) {
    char path[512], path2[512], path3[512];
    snprintf(path, sizeof path, "%s/file.bin", dir);
    snprintf(path2, sizeof path2, "%s/file.enc", dir);
    snprintf(path3, sizeof path3, "%s/file.dec", dir);
    char data[1000];
    for (int i = 0; i < (int)sizeof data; i++) data[i] = (char)(i * 31);
    char *r = chat_write_file(NULL, path, data, sizeof data);
    CHECK(r && strstr(r, "\"type\":\"result\""), "write file: %s", r);
    char *key = json_string(r, "fileKey"), *nonce = json_string(r, "fileNonce");
    free(r);
    REQUIRE(key && nonce, "no cryptoArgs");

    char *buf = chat_read_file(path, key, nonce);
    REQUIRE(buf, "read file NULL");
    CHECK(buf[0] == 0, "read file error: %s", buf + 1);
    if (buf[0] == 0) {
        uint32_t len;
        memcpy(&len, buf + 1, 4);
        CHECK(len == sizeof data && memcmp(buf + 5, data, sizeof data) == 0, "read file: wrong content (%u bytes)", len);
    }
    free(buf);
    buf = chat_read_file(path, nonce, key);
    CHECK(buf && buf[0] == 1 && strlen(buf + 1) > 0, "read with a wrong key should fail");
    free(buf);

    /* chat_encrypt_file of the encrypted file, then chat_decrypt_file gives it back. */
    r = chat_encrypt_file(NULL, path, path2);
    CHECK(r && strstr(r, "\"type\":\"result\""), "encrypt file: %s", r);
    char *key2 = json_string(r, "fileKey"), *nonce2 = json_string(r, "fileNonce");
    free(r);
    REQUIRE(key2 && nonce2, "no cryptoArgs");
    r = chat_decrypt_file(path2, key2, nonce2, path3);
    CHECK(r && *r == 0, "decrypt file: %s", r);
    free(r);
    buf = chat_read_file(path3, key, nonce);
    CHECK(buf && buf[0] == 0 && memcmp(buf + 5, data, sizeof data) == 0, "decrypted file differs");
    free(buf);
    r = chat_decrypt_file(path2, key, nonce, path3);
    CHECK(r && *r, "decrypt with a wrong key should fail");
    free(r);
    r = chat_write_file(NULL, "/nonexistent-dir/x", data, 1);
    CHECK(r && strstr(r, "\"type\":\"error\",\"writeError\""), "write to bad path: %s", r);
    free(r);
    free(key);
    free(nonce);
    free(key2);
    free(nonce2);
}

int main(int argc, char **argv) {
    hs_init(&argc, &argv);
    hs_init_with_rtsopts(&argc, &argv);
    const char *server = getenv("SIMPLEX_SMP_SERVERS");
    REQUIRE(server && strncmp(server, "smp://", 6) == 0, "set SIMPLEX_SMP_SERVERS to a relay address");
    char tmpl[] = "/tmp/cabi-c-XXXXXX";
    char *dir = mkdtemp(tmpl);
    REQUIRE(dir, "mkdtemp");
    double t0 = now();

    test_errors(dir);
    test_utilities(server);
    test_files(dir);

    /* Alice's databases are encrypted, Bob's are plain. */
    chat_ctrl alice = open_client(dir, "alice", "alice passphrase");
    chat_ctrl bob = open_client(dir, "bob", "");
    CHECK(alice != bob, "distinct handles");
    {
        char prefix[512];
        snprintf(prefix, sizeof prefix, "%s/alice", dir);
        chat_ctrl other = NULL;
        char *w = chat_migrate_init_key(prefix, "wrong passphrase", 0, "yesUp", 0, &other);
        CHECK(w && strstr(w, "errorNotADatabase") && other == NULL, "wrong key: %s", w);
        free(w);
        w = chat_migrate_init(prefix, "", "yesUp", &other);
        CHECK(w && strstr(w, "errorNotADatabase") && other == NULL, "no key: %s", w);
        free(w);
    }

    char *inv = cmd(alice, "alice", "/_connect 1");
    char *link = json_string(inv, "connFullLink");
    REQUIRE(link, "no connFullLink: %s", inv);
    free(inv);
    char *connect = malloc(strlen(link) + 16);
    sprintf(connect, "/connect %s", link);
    free(cmd(bob, "bob", connect));
    free(connect);
    free(link);

    char *ea = wait_event(alice, "alice", "contactConnected", NULL, 30);
    char *eb = wait_event(bob, "bob", "contactConnected", NULL, 30);
    long bobId = json_int(ea, "\"contact\":{", "contactId");
    REQUIRE(bobId > 0, "no contactId: %s", ea);
    long aliceIdAtBob = json_int(eb, "\"contact\":{", "contactId");
    REQUIRE(aliceIdAtBob > 0, "no contactId: %s", eb);
    free(ea);
    free(eb);

    char send[256];
    snprintf(send, sizeof send, "/_send @%ld json [{\"msgContent\":{\"type\":\"text\",\"text\":\"hello from C\"}}]", bobId);
    char *sent = cmd(alice, "alice", send);
    CHECK(strstr(sent, "\"type\":\"newChatItems\""), "send: %s", sent);
    free(sent);
    free(wait_event(bob, "bob", "newChatItems", "hello from C", 30));

    char *r = chat_close_store(alice);
    CHECK(r && *r == 0, "close alice: %s", r);
    free(r);
    r = chat_send_cmd(alice, "/users");
    CHECK(r && strstr(r, "errorDatabase"), "closed store: %s", r);
    free(r);
    /* Reopened, the chat resumes: a message sent meanwhile by bob arrives. */
    snprintf(send, sizeof send, "/_send @%ld json [{\"msgContent\":{\"type\":\"text\",\"text\":\"while closed\"}}]", aliceIdAtBob);
    free(cmd(bob, "bob", send));
    r = chat_reopen_store(alice);
    CHECK(r && *r == 0, "reopen alice: %s", r);
    free(r);
    free(wait_event(alice, "alice", "newChatItems", "while closed", 30));
    r = chat_close_store(alice);
    CHECK(r && *r == 0, "close alice: %s", r);
    free(r);
    r = chat_close_store(bob);
    CHECK(r && *r == 0, "close bob: %s", r);
    free(r);

    char rm[600];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", dir);
    if (failures) {
        fprintf(stderr, "cabi_test.c: %d failure(s)\n", failures);
        return 1;
    }
    printf("cabi_test.c: all passed (%.1f s)\n", now() - t0);
    return 0;
}
