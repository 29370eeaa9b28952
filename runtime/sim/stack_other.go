//go:build !js

package sim

// growsStack says whether Go grows each process's stack up front (see
// growStack): natively and under wasip1, where SQLite's translation runs
// on the process's own stack.
const growsStack = true
