package sqldb

import (
	"strings"
	"sync"
)

// Exports is what the browser's SQLite module offers its host, one method
// per export (third_party/sqlite/build/bridge.c and browser_exports.txt),
// plus the two copies between the module's memory and Go's, which the host
// provides. Addresses and handles are the module's 32-bit pointers; text
// comes back packed as the address in the high 32 bits and the length in
// the low 32.
//
// Under GOOS=js the methods are the module's exports themselves, imported
// into the Go module (module_js.go); a native test can run the same module
// under wazero behind the same methods.
type Exports interface {
	// Write copies s into the module's memory at address p.
	Write(p int32, s string)
	// Read copies n bytes at address p out of the module's memory.
	Read(p, n int32) string

	Scratch(n int32) int32 // twice_scratch
	RC() int32             // twice_rc
	Open(n int32) int32    // twice_open
	Exec(db, n int32) int32
	Prepare(db, n int32) int32
	StepAll(stmt int32) int32
	BindText(stmt, i, n int32) int64 // the address to write to, or -rc
	ColumnText(stmt, i int32) int64
	Errmsg(db int32) int64
	Errstr(rc int32) int64
	Delete(n int32) int32

	Close(db int32) int32
	Finalize(stmt int32) int32
	Step(stmt int32) int32
	Reset(stmt int32) int32
	ClearBindings(stmt int32) int32
	BindInt64(stmt, i int32, v int64) int32
	BindNull(stmt, i int32) int32
	ColumnInt64(stmt, i int32) int64
	ColumnType(stmt, i int32) int32
	ColumnCount(stmt int32) int32
	StmtStatus(stmt, op, reset int32) int32
	Changes64(db int32) int64
	LastInsertRowid(db int32) int64
	GetAutocommit(db int32) int32
	ExtendedErrcode(db int32) int32
}

// SQLite's result codes and the constants the bridge passes.
const (
	rcOK       = 0
	rcNoMem    = 7
	rcRow      = 100
	rcDone     = 101
	typeNull   = 5 // SQLITE_NULL
	statVMStep = 4 // SQLITE_STMTSTATUS_VM_STEP
)

// NewModule returns the engine of one instance of the browser's SQLite
// module: every connection it opens lives in that instance, and shares
// the databases of that instance's VFS. The instance must be initialized
// (its _initialize export called) and used by nothing else.
func NewModule(x Exports) Engine { return &module{x: x} }

type module struct {
	mu      sync.Mutex // the module has one thread: one call at a time
	x       Exports
	scratch int32
	cap     int32
}

// put copies s into the scratch buffer, followed by room for a zero, and
// returns its length. The caller holds m.mu.
func (m *module) put(s string) int32 {
	n := int32(len(s))
	if n+1 > m.cap {
		c := max(n+1, 2*m.cap, 256)
		p := m.x.Scratch(c - 1)
		if p == 0 {
			panic(errOOM)
		}
		m.scratch, m.cap = p, c
	}
	if n > 0 {
		m.x.Write(m.scratch, s)
	}
	return n
}

// text reads packed text (address and length) out of the module.
func (m *module) text(packed int64) string {
	p, n := int32(uint64(packed)>>32), int32(uint32(packed))
	if p == 0 || n == 0 {
		return ""
	}
	return m.x.Read(p, n)
}

var errOOM = &Error{Code: rcNoMem, text: "sqlite3: out of memory"}

// err is the error of result code rc on connection db, worded as the
// driver words it: "sqlite3: " and SQLite's words for the code, then the
// connection's message when it says more than those words.
func (m *module) err(db, rc int32) error {
	if rc == rcOK {
		return nil
	}
	if uint8(rc) == rcNoMem {
		panic(errOOM) // as the driver does
	}
	words := m.text(m.x.Errstr(rc))
	var msg string
	if db != 0 {
		msg = m.text(m.x.Errmsg(db))
		msg = strings.TrimPrefix(msg, "sqlite3: ")
		msg = strings.TrimPrefix(msg, words)
		msg = strings.TrimPrefix(msg, ": ")
		if msg == "not an error" {
			msg = ""
		}
	}
	text := "sqlite3: " + words
	if msg != "" {
		text += ": " + msg
	}
	return &Error{Code: int(rc), text: text}
}

func (m *module) Open(name string) (Conn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	db := m.x.Open(m.put(uri(name)))
	if db == 0 {
		panic(errOOM)
	}
	if rc := m.x.RC(); rc != rcOK {
		err := m.err(db, rc)
		m.x.Close(db)
		return nil, err
	}
	return &moduleConn{m: m, db: db}, nil
}

func (m *module) Delete(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.x.Delete(m.put(name))
}

type moduleConn struct {
	m  *module
	db int32
}

func (c *moduleConn) Exec(sql string) error {
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err(c.db, m.x.Exec(c.db, m.put(sql)))
}

func (c *moduleConn) Prepare(sql string) (Stmt, error) {
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.x.Prepare(c.db, m.put(sql))
	if h == 0 {
		if err := m.err(c.db, m.x.RC()); err != nil {
			return nil, err
		}
		return nil, errNoStatement
	}
	return &moduleStmt{c: c, h: h}, nil
}

func (c *moduleConn) Changes() int64 {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	return c.m.x.Changes64(c.db)
}

func (c *moduleConn) LastInsertRowID() int64 {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	return c.m.x.LastInsertRowid(c.db)
}

func (c *moduleConn) Autocommit() bool {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	return c.m.x.GetAutocommit(c.db) != 0
}

func (c *moduleConn) Close() error {
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.err(c.db, m.x.Close(c.db)); err != nil {
		return err
	}
	c.db = 0
	return nil
}

type moduleStmt struct {
	c   *moduleConn
	h   int32
	err error
}

// call runs f with the module's lock held and returns the error of the
// result code it gives.
func (s *moduleStmt) call(f func(x Exports) int32) error {
	m := s.c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err(s.c.db, f(m.x))
}

func (s *moduleStmt) BindInt64(i int, v int64) error {
	return s.call(func(x Exports) int32 { return x.BindInt64(s.h, int32(i), v) })
}

func (s *moduleStmt) BindNull(i int) error {
	return s.call(func(x Exports) int32 { return x.BindNull(s.h, int32(i)) })
}

func (s *moduleStmt) BindText(i int, v string) error {
	m := s.c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.x.BindText(s.h, int32(i), int32(len(v)))
	if p < 0 {
		return m.err(s.c.db, int32(-p))
	}
	if len(v) > 0 {
		m.x.Write(int32(p), v)
	}
	return nil
}

func (s *moduleStmt) Step() bool {
	m := s.c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	switch rc := m.x.Step(s.h); rc {
	case rcRow:
		s.err = nil
		return true
	case rcDone:
		s.err = nil
	default:
		s.err = m.err(s.c.db, rc)
	}
	return false
}

func (s *moduleStmt) Err() error { return s.err }

func (s *moduleStmt) Exec() error {
	s.err = nil
	return s.call(func(x Exports) int32 { return x.StepAll(s.h) })
}

func (s *moduleStmt) Reset() error {
	s.err = nil
	return s.call(func(x Exports) int32 { return x.Reset(s.h) })
}

func (s *moduleStmt) ClearBindings() error {
	return s.call(func(x Exports) int32 { return x.ClearBindings(s.h) })
}

func (s *moduleStmt) ColumnCount() int {
	s.c.m.mu.Lock()
	defer s.c.m.mu.Unlock()
	return int(s.c.m.x.ColumnCount(s.h))
}

func (s *moduleStmt) ColumnNull(i int) bool {
	s.c.m.mu.Lock()
	defer s.c.m.mu.Unlock()
	return s.c.m.x.ColumnType(s.h, int32(i)) == typeNull
}

func (s *moduleStmt) ColumnInt64(i int) int64 {
	s.c.m.mu.Lock()
	defer s.c.m.mu.Unlock()
	return s.c.m.x.ColumnInt64(s.h, int32(i))
}

func (s *moduleStmt) ColumnInt(i int) int { return int(s.ColumnInt64(i)) }

func (s *moduleStmt) ColumnText(i int) string {
	m := s.c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.text(m.x.ColumnText(s.h, int32(i)))
}

func (s *moduleStmt) VMSteps() int64 {
	s.c.m.mu.Lock()
	defer s.c.m.mu.Unlock()
	return int64(s.c.m.x.StmtStatus(s.h, statVMStep, 1))
}

func (s *moduleStmt) Close() error {
	if s.h == 0 {
		return nil
	}
	err := s.call(func(x Exports) int32 { return x.Finalize(s.h) })
	s.h = 0
	return err
}
