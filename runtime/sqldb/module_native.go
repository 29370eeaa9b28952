//go:build !js

package sqldb

import "sync"

// NewModule returns the engine of one instance of the browser's SQLite
// module, reached through x: every connection it opens lives in that
// instance. The instance must be initialized (its _initialize export
// called) and used by nothing else. (Under GOOS=js the package's own
// engine is one of these on the imported module.)
func NewModule(x Exports) Engine { return &module{x: x} }

type (
	exportsT = Exports
	lock     = sync.Mutex
)
