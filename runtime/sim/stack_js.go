//go:build js

package sim

// growsStack is false in the browser build: there SQLite runs in a module
// of its own, so a SQL statement adds a few frames to a process's stack,
// not the deep calls of SQLite's translation that growStack makes room
// for; growing every process's stack to stackReserve anyway cost about a
// tenth of a race's time (docs/PERFORMANCE.md).
const growsStack = false
