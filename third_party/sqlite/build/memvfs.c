// The in-memory VFS of the browser's SQLite module, named "memdb" as the
// driver's is, and written to behave as the driver's memdb VFS does
// (github.com/ncruces/go-sqlite3/vfs/memdb) for everything SQLite can
// observe:
//
//   - A database whose name begins with "/" is shared, by the rest of its
//     name, among every connection that opens it; it lives until its last
//     connection closes it, or until memvfs_delete forgets the name. Any
//     other name is a database of one connection's own.
//   - The data are 64 KiB sectors, grown on write and cleared on truncate;
//     a read past the end is a short read of zeros.
//   - Opening a database answers SQLITE_OPEN_MEMORY, so SQLite keeps the
//     rollback journal in memory and asks for no journal file; a temporary
//     journal (the sorter's) is a growable buffer; every other kind of file
//     fails to open with SQLITE_CANTOPEN.
//   - The locks are SQLite's five levels, kept per database: a SHARED lock
//     fails with SQLITE_BUSY while a writer is PENDING; a RESERVED lock
//     fails with SQLITE_BUSY while another connection holds one; EXCLUSIVE
//     moves a RESERVED lock to PENDING and fails with SQLITE_BUSY, leaving
//     it PENDING, while any other connection holds SHARED. The driver waits
//     up to a millisecond for those readers first; here nothing else runs
//     while SQLite waits (the module has one thread), so the answer is the
//     same at once.
//   - Sector size 64 KiB; the device is atomic, sequential, safe-append and
//     powersafe-overwrite, as the driver's says.
//
// Unlike the driver's VFS, this one never reads the host's clock or its
// randomness: xRandomness gives zeros (SQLite's own generator then starts
// from a fixed key) and xCurrentTimeInt64 always answers the same instant,
// so that the same calls give the same bytes on every run. This build of
// SQLite has no SQL function that asks for the time (nodatetime.patch).

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"

#define MEMVFS_SECTOR 65536

typedef struct memdb {
  struct memdb* next;  // in memdb_shared, when shared
  char* name;          // without the leading "/"; NULL when private
  unsigned char** data;
  int nData;  // sectors allocated
  sqlite3_int64 size;
  int refs;  // open files of a shared database
  int shared;
  bool pending;
  bool reserved;
} memdb;

// The shared databases, by name.
static memdb* memdb_shared;

typedef struct memfile {
  sqlite3_file base;
  memdb* db;  // NULL for a temporary journal
  int lock;
  bool readOnly;
  // A temporary journal's bytes.
  unsigned char* buf;
  sqlite3_int64 len, cap;
} memfile;

static void memdb_free(memdb* db) {
  for (int i = 0; i < db->nData; i++) free(db->data[i]);
  free(db->data);
  free(db->name);
  free(db);
}

// memdb_unlink takes db off the list of shared databases, if it is there.
static void memdb_unlink(memdb* db) {
  for (memdb** p = &memdb_shared; *p; p = &(*p)->next) {
    if (*p == db) {
      *p = db->next;
      db->next = NULL;
      return;
    }
  }
}

static memdb* memdb_find(const char* name) {
  for (memdb* db = memdb_shared; db; db = db->next) {
    if (!strcmp(db->name, name)) return db;
  }
  return NULL;
}

// memvfs_delete forgets the shared database called name (with or without
// its leading "/"): connections that have it open keep it until they close
// it, and the next open of the name creates a new one.
static int memvfs_delete(const char* name) {
  if (name[0] == '/') name++;
  memdb* db = memdb_find(name);
  if (db == NULL) return SQLITE_OK;
  memdb_unlink(db);
  if (db->refs == 0) memdb_free(db);
  return SQLITE_OK;
}

// memdb_release drops one file's reference to db.
static void memdb_release(memdb* db) {
  if (db->name == NULL) {
    memdb_free(db);
    return;
  }
  if (--db->refs > 0) return;
  if (memdb_find(db->name) == db) memdb_unlink(db);
  memdb_free(db);
}

// memdb_grow makes sure db has at least n sectors.
static int memdb_grow(memdb* db, sqlite3_int64 n) {
  if (n <= db->nData) return SQLITE_OK;
  unsigned char** data = realloc(db->data, n * sizeof(*data));
  if (data == NULL) return SQLITE_NOMEM;
  db->data = data;
  while (db->nData < n) {
    unsigned char* s = calloc(1, MEMVFS_SECTOR);
    if (s == NULL) return SQLITE_NOMEM;
    db->data[db->nData++] = s;
  }
  return SQLITE_OK;
}

static int memdb_truncate(memdb* db, sqlite3_int64 size) {
  if (size < db->size) {
    sqlite3_int64 base = size / MEMVFS_SECTOR, rest = size % MEMVFS_SECTOR;
    if (rest != 0) memset(db->data[base] + rest, 0, MEMVFS_SECTOR - rest);
  }
  sqlite3_int64 sectors = (size + MEMVFS_SECTOR - 1) / MEMVFS_SECTOR;
  int rc = memdb_grow(db, sectors);
  if (rc != SQLITE_OK) return rc;
  while (db->nData > sectors) free(db->data[--db->nData]);
  db->size = size;
  return SQLITE_OK;
}

static int memUnlock(sqlite3_file* f, int lock);

static int memClose(sqlite3_file* f) {
  memfile* m = (memfile*)f;
  if (m->db != NULL) {
    memdb* db = m->db;
    memUnlock(f, SQLITE_LOCK_NONE);
    m->db = NULL;
    memdb_release(db);
  }
  free(m->buf);
  m->buf = NULL;
  return SQLITE_OK;
}

static int memRead(sqlite3_file* f, void* p, int n, sqlite3_int64 off) {
  memfile* m = (memfile*)f;
  if (m->db == NULL) {  // a temporary journal
    sqlite3_int64 got = 0;
    if (off < m->len) {
      got = m->len - off < n ? m->len - off : n;
      memcpy(p, m->buf + off, got);
    }
    if (got == n) return SQLITE_OK;
    memset((char*)p + got, 0, n - got);
    return SQLITE_IOERR_SHORT_READ;
  }
  memdb* db = m->db;
  if (off >= db->size) {
    memset(p, 0, n);
    return SQLITE_IOERR_SHORT_READ;
  }
  sqlite3_int64 base = off / MEMVFS_SECTOR, rest = off % MEMVFS_SECTOR;
  sqlite3_int64 have = MEMVFS_SECTOR;
  if (db->size < off + n) {
    have = MEMVFS_SECTOR - (MEMVFS_SECTOR - db->size % MEMVFS_SECTOR) % MEMVFS_SECTOR;
  }
  sqlite3_int64 got = have - rest < n ? have - rest : n;
  if (got < 0) got = 0;
  memcpy(p, db->data[base] + rest, got);
  // Reads are page-aligned and pages never straddle sectors.
  return got == n ? SQLITE_OK : SQLITE_IOERR_READ;
}

static int memWrite(sqlite3_file* f, const void* p, int n, sqlite3_int64 off) {
  memfile* m = (memfile*)f;
  if (m->db == NULL) {
    sqlite3_int64 end = off + n;
    if (end > m->cap) {
      sqlite3_int64 cap = m->cap ? m->cap : 4096;
      while (cap < end) cap *= 2;
      unsigned char* buf = realloc(m->buf, cap);
      if (buf == NULL) return SQLITE_NOMEM;
      m->buf = buf;
      m->cap = cap;
    }
    if (off > m->len) memset(m->buf + m->len, 0, off - m->len);
    memcpy(m->buf + off, p, n);
    if (end > m->len) m->len = end;
    return SQLITE_OK;
  }
  memdb* db = m->db;
  sqlite3_int64 base = off / MEMVFS_SECTOR, rest = off % MEMVFS_SECTOR;
  int rc = memdb_grow(db, base + 1);
  if (rc != SQLITE_OK) return rc;
  sqlite3_int64 put = MEMVFS_SECTOR - rest < n ? MEMVFS_SECTOR - rest : n;
  memcpy(db->data[base] + rest, p, put);
  if (off + put > db->size) db->size = off + put;
  // Writes are page-aligned and pages never straddle sectors.
  return put == n ? SQLITE_OK : SQLITE_IOERR_WRITE;
}

static int memTruncate(sqlite3_file* f, sqlite3_int64 size) {
  memfile* m = (memfile*)f;
  if (m->db == NULL) {
    if (size < m->len) m->len = size;
    return SQLITE_OK;
  }
  return memdb_truncate(m->db, size);
}

static int memSync(sqlite3_file* f, int flags) { return SQLITE_OK; }

static int memFileSize(sqlite3_file* f, sqlite3_int64* size) {
  memfile* m = (memfile*)f;
  *size = m->db == NULL ? m->len : m->db->size;
  return SQLITE_OK;
}

static int memLock(sqlite3_file* f, int lock) {
  memfile* m = (memfile*)f;
  memdb* db = m->db;
  if (db == NULL) return SQLITE_IOERR_LOCK;
  if (m->lock >= lock) return SQLITE_OK;
  if (m->readOnly && lock >= SQLITE_LOCK_RESERVED) return SQLITE_IOERR_LOCK;
  switch (lock) {
    case SQLITE_LOCK_SHARED:
      if (db->pending) return SQLITE_BUSY;
      db->shared++;
      break;
    case SQLITE_LOCK_RESERVED:
      if (db->reserved) return SQLITE_BUSY;
      db->reserved = true;
      break;
    case SQLITE_LOCK_EXCLUSIVE:
      if (m->lock == SQLITE_LOCK_RESERVED) {
        m->lock = SQLITE_LOCK_PENDING;
        db->pending = true;
      }
      if (db->shared > 1) return SQLITE_BUSY;
      break;
  }
  m->lock = lock;
  return SQLITE_OK;
}

static int memUnlock(sqlite3_file* f, int lock) {
  memfile* m = (memfile*)f;
  memdb* db = m->db;
  if (db == NULL) return SQLITE_IOERR_UNLOCK;
  if (m->lock <= lock) return SQLITE_OK;
  if (m->lock >= SQLITE_LOCK_RESERVED) db->reserved = false;
  if (m->lock >= SQLITE_LOCK_PENDING) db->pending = false;
  if (lock < SQLITE_LOCK_SHARED) db->shared--;
  m->lock = lock;
  return SQLITE_OK;
}

static int memCheckReservedLock(sqlite3_file* f, int* out) {
  memfile* m = (memfile*)f;
  if (m->db == NULL) {
    *out = 0;
    return SQLITE_IOERR_CHECKRESERVEDLOCK;
  }
  *out = m->lock >= SQLITE_LOCK_RESERVED || m->db->reserved;
  return SQLITE_OK;
}

static int memFileControl(sqlite3_file* f, int op, void* arg) {
  memfile* m = (memfile*)f;
  switch (op) {
    case SQLITE_FCNTL_LOCKSTATE:
      if (m->db != NULL) {
        *(int*)arg = m->lock;
        return SQLITE_OK;
      }
      break;
    case SQLITE_FCNTL_SIZE_HINT: {
      sqlite3_int64 size = *(sqlite3_int64*)arg;
      if (m->db == NULL) {
        if (size > m->len) {
          int rc = memWrite(f, "", 0, size);  // grows the buffer, zeroed
          if (rc != SQLITE_OK) return rc;
          m->len = size;
        }
        return SQLITE_OK;
      }
      if (size > m->db->size) return memdb_truncate(m->db, size);
      return SQLITE_OK;
    }
  }
  return SQLITE_NOTFOUND;
}

static int memSectorSize(sqlite3_file* f) {
  return ((memfile*)f)->db == NULL ? 0 : MEMVFS_SECTOR;
}

static int memDeviceCharacteristics(sqlite3_file* f) {
  int c = SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_SEQUENTIAL |
          SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_POWERSAFE_OVERWRITE;
  if (((memfile*)f)->db == NULL) c |= SQLITE_IOCAP_SUBPAGE_READ;
  return c;
}

static const sqlite3_io_methods memvfs_io = {
    .iVersion = 1,
    .xClose = memClose,
    .xRead = memRead,
    .xWrite = memWrite,
    .xTruncate = memTruncate,
    .xSync = memSync,
    .xFileSize = memFileSize,
    .xLock = memLock,
    .xUnlock = memUnlock,
    .xCheckReservedLock = memCheckReservedLock,
    .xFileControl = memFileControl,
    .xSectorSize = memSectorSize,
    .xDeviceCharacteristics = memDeviceCharacteristics,
};

static int memOpen(sqlite3_vfs* vfs, sqlite3_filename zName, sqlite3_file* f,
                   int flags, int* outFlags) {
  memfile* m = (memfile*)f;
  memset(m, 0, sizeof(*m));
  if (flags & SQLITE_OPEN_TEMP_JOURNAL) {
    m->base.pMethods = &memvfs_io;
    if (outFlags) *outFlags = flags | SQLITE_OPEN_MEMORY;
    return SQLITE_OK;
  }
  const int databases =
      SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TRANSIENT_DB;
  if ((flags & databases) == 0) return SQLITE_CANTOPEN;
  bool shared = zName != NULL && zName[0] == '/';
  memdb* db = shared ? memdb_find(zName + 1) : NULL;
  if (db == NULL) {
    if ((flags & SQLITE_OPEN_CREATE) == 0) return SQLITE_CANTOPEN;
    db = calloc(1, sizeof(*db));
    if (db == NULL) return SQLITE_NOMEM;
    if (shared) {
      db->name = strdup(zName + 1);
      if (db->name == NULL) {
        free(db);
        return SQLITE_NOMEM;
      }
      db->next = memdb_shared;
      memdb_shared = db;
    }
  }
  if (shared) db->refs++;
  m->db = db;
  m->readOnly = (flags & SQLITE_OPEN_READONLY) != 0;
  m->base.pMethods = &memvfs_io;
  if (outFlags) *outFlags = flags | SQLITE_OPEN_MEMORY;
  return SQLITE_OK;
}

static int memDelete(sqlite3_vfs* vfs, const char* zName, int syncDir) {
  return SQLITE_IOERR_DELETE_NOENT;  // asked only for journals
}

static int memAccess(sqlite3_vfs* vfs, const char* zName, int flags,
                     int* out) {
  *out = 0;  // asked only for journals
  return SQLITE_OK;
}

static int memFullPathname(sqlite3_vfs* vfs, const char* zName, int nOut,
                           char* zOut) {
  size_t n = strlen(zName);
  if (n >= (size_t)nOut) return SQLITE_CANTOPEN_FULLPATH;
  memcpy(zOut, zName, n + 1);
  return SQLITE_OK;
}

static int memRandomness(sqlite3_vfs* vfs, int n, char* out) {
  memset(out, 0, n);
  return n;
}

static int memSleep(sqlite3_vfs* vfs, int micro) { return 0; }

// The Unix epoch, 1970-01-01T00:00:00Z, as a Julian day in milliseconds.
static int memCurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  *out = 210866760000000LL;
  return SQLITE_OK;
}

static sqlite3_vfs memvfs = {
    .iVersion = 2,
    .szOsFile = sizeof(memfile),
    .mxPathname = 1024,
    .zName = "memdb",
    .xOpen = memOpen,
    .xDelete = memDelete,
    .xAccess = memAccess,
    .xFullPathname = memFullPathname,
    .xRandomness = memRandomness,
    .xSleep = memSleep,
    .xCurrentTimeInt64 = memCurrentTimeInt64,
};

int sqlite3_os_init(void) { return sqlite3_vfs_register(&memvfs, 1); }

int sqlite3_os_end(void) { return SQLITE_OK; }
