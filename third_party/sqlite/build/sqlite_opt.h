// The compile-time options of the SQLite twice links.
//
// The driver's own recommended options come first, unchanged. Then each
// feature this build leaves out sits behind a KEEP_* switch, so that
// `build.sh --measure KEEP_X` can rebuild with just that one feature put
// back and report what leaving it out saves. RATIONALE.md lists the
// omissions, what each saved, and what a reader's SQL cannot use.

// Recommended Options

#define SQLITE_DQS 0
#define SQLITE_THREADSAFE 0
#define SQLITE_DEFAULT_WAL_SYNCHRONOUS 1
#define SQLITE_LIKE_DOESNT_MATCH_BLOBS
#define SQLITE_STRICT_SUBTYPE 1
#define SQLITE_OMIT_DEPRECATED
#define SQLITE_OMIT_SHARED_CACHE
#define SQLITE_OMIT_AUTOINIT

// Other options the driver sets, kept.

#define SQLITE_USE_URI 1
#define SQLITE_ALLOW_URI_AUTHORITY
#define SQLITE_TRUSTED_SCHEMA 0
#define SQLITE_ENABLE_API_ARMOR
#define SQLITE_OMIT_COMPLETE
#define SQLITE_OMIT_GET_TABLE
#define SQLITE_OMIT_DESERIALIZE
#define SQLITE_OMIT_LOAD_EXTENSION
#define SQLITE_MAX_MMAP_SIZE (1024 * 1024 * 1024)
#define SQLITE_EXPERIMENTAL_PRAGMA_20251114

// Options the driver enables and twice does not: each is enabled only
// with its KEEP_* switch.

#ifdef KEEP_FOREIGN_KEYS
#define SQLITE_DEFAULT_FOREIGN_KEYS 1
#endif
#ifdef KEEP_ATOMIC_WRITE // batch and atomic writes: the memdb VFS needs neither
#define SQLITE_ENABLE_ATOMIC_WRITE
#define SQLITE_ENABLE_BATCH_ATOMIC_WRITE
#define SQLITE_ENABLE_SETLK_TIMEOUT 2
#endif
#ifdef KEEP_COLUMN_METADATA
#define SQLITE_ENABLE_COLUMN_METADATA
#endif
#ifdef KEEP_MATH_FUNCTIONS
#define SQLITE_ENABLE_MATH_FUNCTIONS
#endif
#ifdef KEEP_PREUPDATE_HOOK
#define SQLITE_ENABLE_PREUPDATE_HOOK
#endif
#ifdef KEEP_STAT4
#define SQLITE_ENABLE_STAT4 1
#endif
#ifdef KEEP_SOUNDEX
#define SQLITE_SOUNDEX
#endif

// Features SQLite has by default and twice leaves out.

#ifndef KEEP_JSON
#define SQLITE_OMIT_JSON
#endif
#ifndef KEEP_VIRTUALTABLE
#define SQLITE_OMIT_VIRTUALTABLE
#endif
#ifndef KEEP_WAL
#define SQLITE_OMIT_WAL
#endif
#ifndef KEEP_AUTOVACUUM
#define SQLITE_OMIT_AUTOVACUUM
#endif
#ifndef KEEP_ANALYZE
#define SQLITE_OMIT_ANALYZE
#endif
#ifndef KEEP_REINDEX
#define SQLITE_OMIT_REINDEX
#endif
#ifndef KEEP_ALTERTABLE
#define SQLITE_OMIT_ALTERTABLE
#endif
#ifndef KEEP_AUTHORIZATION
#define SQLITE_OMIT_AUTHORIZATION
#endif
#ifndef KEEP_PROGRESS_CALLBACK
#define SQLITE_OMIT_PROGRESS_CALLBACK
#endif
#ifndef KEEP_TRACE
#define SQLITE_OMIT_TRACE
#endif
#ifndef KEEP_EXPLAIN
#define SQLITE_OMIT_EXPLAIN
#endif
#ifndef KEEP_INTEGRITY_CHECK
#define SQLITE_OMIT_INTEGRITY_CHECK
#endif
#ifndef KEEP_INCRBLOB
#define SQLITE_OMIT_INCRBLOB
#endif
#ifndef KEEP_UTF16
#define SQLITE_OMIT_UTF16
#endif
#ifndef KEEP_COMPILEOPTION_DIAGS
#define SQLITE_OMIT_COMPILEOPTION_DIAGS
#endif
#ifndef KEEP_DECLTYPE
#define SQLITE_OMIT_DECLTYPE
#endif
#ifndef KEEP_PRAGMA
#define SQLITE_OMIT_PRAGMA
#endif
#ifndef KEEP_TEMPDB
#define SQLITE_OMIT_TEMPDB
#endif
#ifndef KEEP_FOREIGN_KEY
#define SQLITE_OMIT_FOREIGN_KEY
#endif
#ifndef KEEP_VIEW
#define SQLITE_OMIT_VIEW
#endif
#ifndef KEEP_GENERATED_COLUMNS
#define SQLITE_OMIT_GENERATED_COLUMNS
#endif
#ifndef KEEP_CHECK
#define SQLITE_OMIT_CHECK
#endif
#ifndef KEEP_AUTOMATIC_INDEX
#define SQLITE_OMIT_AUTOMATIC_INDEX
#endif
#ifndef KEEP_XFER_OPT
#define SQLITE_OMIT_XFER_OPT
#endif
#ifndef KEEP_DATETIME // date(), time(), strftime(), unixepoch(), CURRENT_TIMESTAMP...
#define SQLITE_OMIT_DATETIME_FUNCS
#endif
#ifndef KEEP_ATTACH // ATTACH and DETACH, and VACUUM, which attaches its copy
#define SQLITE_OMIT_ATTACH
#define SQLITE_OMIT_VACUUM
#endif
#ifndef KEEP_TESTCTRL // SQLite's own test hooks (fault injection, test_control)
#define SQLITE_UNTESTABLE
#endif
#ifndef KEEP_OR_OPT // the OR-by-union plan: the lab's tables are a few rows
#define SQLITE_OMIT_OR_OPTIMIZATION
#endif
#ifndef KEEP_LIKE_OPT // LIKE as an index range: the same
#define SQLITE_OMIT_LIKE_OPTIMIZATION
#endif
