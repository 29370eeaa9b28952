// The translation unit of the browser's SQLite module: the same
// amalgamation, options and patches as main.c, with an in-memory VFS in C
// (memvfs.c) in place of the driver's Go VFS, and the entry points the Go
// program's bridge calls (bridge.c) in place of the driver's bindings. The
// module imports nothing: it owns its memory and grows it itself.

// Amalgamation
#include "sqlite3.c"
// Entry points the parser reaches in omitted features.
#include "stubs.c"
// The time collation the driver registers on every connection.
#include "time.c"
// The VFS and the bridge.
#include "memvfs.c"
#include "bridge.c"
// Libc
#include "libc.c"
#include "libc_str.c"
#include "malloc_tlsf.c"

static int malloc_good_size_(int size) { return malloc_good_size(size); }

void _initialize() {
  init_allocator();

  static sqlite3_mem_methods mem_methods;
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &mem_methods);

  mem_methods.xRoundup = malloc_good_size_;
  sqlite3_config(SQLITE_CONFIG_MALLOC, &mem_methods);

  sqlite3_initialize();
  sqlite3_auto_extension((void (*)(void))sqlite3_time_init);
}
