// The entry points of the browser's SQLite module beyond SQLite's own API,
// for the Go program's bridge (runtime/sqldb): each does what the driver's
// Go code does around the same SQLite call, so that both sides pass SQLite
// the same arguments. Text goes in through one buffer (twice_scratch),
// which the caller fills before the call that reads it; text comes out as
// an address and a length packed into one 64-bit integer (the address in
// the high half), which the caller copies out of the module's memory.

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"

static char* scratch;
static int scratchCap;

// twice_scratch returns a buffer of at least n+1 bytes, the one the calls
// below read their text from. It stays where it is until a call asks for
// more than it holds.
char* twice_scratch(int n) {
  if (n + 1 > scratchCap) {
    char* p = realloc(scratch, n + 1);
    if (p == NULL) return NULL;
    scratch = p;
    scratchCap = n + 1;
  }
  return scratch;
}

static int lastRC;

// twice_rc is the result code of the last twice_open or twice_prepare.
int twice_rc(void) { return lastRC; }

// twice_open opens the database named by the URI of n bytes in the scratch
// buffer, as the driver's Open does: read-write, created if need be, URI
// names understood, extended result codes on. It returns the connection,
// which exists even when opening failed (twice_rc says), except when
// memory ran out.
sqlite3* twice_open(int n) {
  scratch[n] = 0;
  sqlite3* db = NULL;
  lastRC = sqlite3_open_v2(scratch, &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                               SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE,
                           NULL);
  return db;
}

// twice_exec runs every statement of the n bytes of SQL in the scratch
// buffer, as sqlite3_exec does.
int twice_exec(sqlite3* db, int n) {
  scratch[n] = 0;
  return sqlite3_exec(db, scratch, NULL, NULL, NULL);
}

// twice_prepare compiles the first statement of the n bytes of SQL in the
// scratch buffer (the length passed to SQLite counts the terminating zero,
// as the driver's does), or returns NULL: twice_rc says why.
sqlite3_stmt* twice_prepare(sqlite3* db, int n) {
  scratch[n] = 0;
  sqlite3_stmt* stmt = NULL;
  lastRC = sqlite3_prepare_v3(db, scratch, n + 1, 0, &stmt, NULL);
  return stmt;
}

// twice_step_all steps stmt until it returns no more rows, then resets it
// and returns what the reset says: the driver's Stmt.Exec.
int twice_step_all(sqlite3_stmt* stmt) {
  while (sqlite3_step(stmt) == SQLITE_ROW) {
  }
  return sqlite3_reset(stmt);
}

// twice_bind_text binds to parameter i of stmt a string of n bytes and
// returns where the caller is to write them, or, when the bind failed,
// minus its result code. SQLite keeps the bytes, which it reads no sooner
// than the next step, and frees them: the driver binds its strings the
// same way (zero-terminated, freed by sqlite3_free).
int64_t twice_bind_text(sqlite3_stmt* stmt, int i, int n) {
  char* p = sqlite3_malloc64((sqlite3_uint64)n + 1);
  if (p == NULL) return -SQLITE_NOMEM;
  p[n] = 0;
  int rc = sqlite3_bind_text64(stmt, i, p, n, sqlite3_free, SQLITE_UTF8_ZT);
  if (rc != SQLITE_OK) return -rc;  // SQLite has freed p
  return (int64_t)(uintptr_t)p;
}

// twice_bind_text16 binds a string of n <= 16 bytes, passed in lo and hi
// (little-endian), as twice_bind_text does, and returns the result code.
int twice_bind_text16(sqlite3_stmt* stmt, int i, int n, int64_t lo,
                      int64_t hi) {
  if (n < 0 || n > 16) return SQLITE_MISUSE;
  char* p = sqlite3_malloc64((sqlite3_uint64)n + 1);
  if (p == NULL) return SQLITE_NOMEM;
  int64_t v[2] = {lo, hi};
  memcpy(p, v, n);
  p[n] = 0;
  return sqlite3_bind_text64(stmt, i, p, n, sqlite3_free, SQLITE_UTF8_ZT);
}

// twice_load returns min(n, 8) bytes at p, little-endian: how the bridge
// reads short text with no copy through its host.
int64_t twice_load(const char* p, int n) {
  int64_t v = 0;
  memcpy(&v, p, n < 8 ? n : 8);
  return v;
}

static int64_t pack(const void* p, int n) {
  return (int64_t)(((uint64_t)(uintptr_t)p << 32) | (uint32_t)n);
}

// twice_column_text is column i of the current row of stmt as text: its
// address and its length in bytes, packed.
int64_t twice_column_text(sqlite3_stmt* stmt, int i) {
  const unsigned char* p = sqlite3_column_text(stmt, i);
  return pack(p, sqlite3_column_bytes(stmt, i));
}

// twice_errmsg is the connection's last error message, packed.
int64_t twice_errmsg(sqlite3* db) {
  const char* p = sqlite3_errmsg(db);
  return pack(p, p ? (int)strlen(p) : 0);
}

// twice_errstr is SQLite's English for result code rc, packed.
int64_t twice_errstr(int rc) {
  const char* p = sqlite3_errstr(rc);
  return pack(p, (int)strlen(p));
}

// twice_delete forgets the shared in-memory database whose name is the n
// bytes in the scratch buffer (see memvfs.c).
int twice_delete(int n) {
  scratch[n] = 0;
  return memvfs_delete(scratch);
}
