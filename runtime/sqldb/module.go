package sqldb

import (
	"strings"
	"unsafe"
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
// under wazero behind the same methods ([NewModule]).
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
	BindText16(stmt, i, n int32, lo, hi int64) int32
	ColumnText(stmt, i int32) int64
	Load(p, n int32) int64 // up to 8 bytes at p, little-endian
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

// module is the engine of one instance of the browser's SQLite module:
// every connection it opens lives in that instance, and shares the
// databases of that instance's VFS. The module has one thread, so its
// calls are made one at a time (mu; under GOOS=js, where the runtime
// starts no goroutine and JavaScript calls in one event at a time, there
// is nothing to lock). exportsT is the Exports interface natively, and
// the imported functions themselves under GOOS=js, so that each call
// there is a direct one.
type module struct {
	mu      lock
	x       exportsT
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

// text reads packed text (address and length) out of the module: short
// text eight bytes a call (a call from one module to the other is far
// cheaper than one through JavaScript), the rest with one copy.
func (m *module) text(packed int64) string {
	p, n := int32(uint64(packed)>>32), int32(uint32(packed))
	if p == 0 || n == 0 {
		return ""
	}
	if n > shortText {
		return m.x.Read(p, n)
	}
	b := make([]byte, n)
	for off := int32(0); off < n; off += 8 {
		v := uint64(m.x.Load(p+off, n-off))
		for i := off; i < n && i < off+8; i++ {
			b[i] = byte(v)
			v >>= 8
		}
	}
	return unsafe.String(unsafe.SliceData(b), n)
}

// shortText is the longest text read with Load instead of Read.
const shortText = 32

// le is up to 8 bytes of s from off, little-endian.
func le(s string, off int) int64 {
	var v uint64
	for i := min(len(s), off+8) - 1; i >= off; i-- {
		v = v<<8 | uint64(s[i])
	}
	return int64(v)
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

// The methods below take the lock without defer: they are the hot path,
// and what they call panics only when the module is out of memory, after
// which nothing works anyway.

type moduleConn struct {
	m  *module
	db int32
}

func (c *moduleConn) Exec(sql string) error {
	m := c.m
	m.mu.Lock()
	err := m.err(c.db, m.x.Exec(c.db, m.put(sql)))
	m.mu.Unlock()
	return err
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
	return &moduleStmt{m: m, db: c.db, h: h}, nil
}

func (c *moduleConn) Changes() int64 {
	c.m.mu.Lock()
	n := c.m.x.Changes64(c.db)
	c.m.mu.Unlock()
	return n
}

func (c *moduleConn) LastInsertRowID() int64 {
	c.m.mu.Lock()
	n := c.m.x.LastInsertRowid(c.db)
	c.m.mu.Unlock()
	return n
}

func (c *moduleConn) Autocommit() bool {
	c.m.mu.Lock()
	b := c.m.x.GetAutocommit(c.db) != 0
	c.m.mu.Unlock()
	return b
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
	m     *module
	db, h int32
	err   error
}

// done unlocks the module and returns the error of result code rc.
func (s *moduleStmt) done(rc int32) error {
	var err error
	if rc != rcOK {
		err = s.m.err(s.db, rc)
	}
	s.m.mu.Unlock()
	return err
}

func (s *moduleStmt) BindInt64(i int, v int64) error {
	s.m.mu.Lock()
	return s.done(s.m.x.BindInt64(s.h, int32(i), v))
}

func (s *moduleStmt) BindNull(i int) error {
	s.m.mu.Lock()
	return s.done(s.m.x.BindNull(s.h, int32(i)))
}

// BindText passes text of up to 16 bytes in the call itself; longer text
// is bound first and then copied to where SQLite will read it.
func (s *moduleStmt) BindText(i int, v string) error {
	m := s.m
	m.mu.Lock()
	if len(v) <= 16 {
		return s.done(m.x.BindText16(s.h, int32(i), int32(len(v)), le(v, 0), le(v, 8)))
	}
	p := m.x.BindText(s.h, int32(i), int32(len(v)))
	if p < 0 {
		return s.done(int32(-p))
	}
	m.x.Write(int32(p), v)
	return s.done(rcOK)
}

func (s *moduleStmt) Step() bool {
	m := s.m
	m.mu.Lock()
	rc := m.x.Step(s.h)
	switch rc {
	case rcRow:
		s.err = nil
		m.mu.Unlock()
		return true
	case rcDone:
		s.err = nil
		m.mu.Unlock()
	default:
		s.err = s.done(rc)
	}
	return false
}

func (s *moduleStmt) Err() error { return s.err }

func (s *moduleStmt) Exec() error {
	s.err = nil
	s.m.mu.Lock()
	return s.done(s.m.x.StepAll(s.h))
}

func (s *moduleStmt) Reset() error {
	s.err = nil
	s.m.mu.Lock()
	return s.done(s.m.x.Reset(s.h))
}

func (s *moduleStmt) ClearBindings() error {
	s.m.mu.Lock()
	return s.done(s.m.x.ClearBindings(s.h))
}

func (s *moduleStmt) ColumnCount() int {
	s.m.mu.Lock()
	n := s.m.x.ColumnCount(s.h)
	s.m.mu.Unlock()
	return int(n)
}

func (s *moduleStmt) ColumnNull(i int) bool {
	s.m.mu.Lock()
	t := s.m.x.ColumnType(s.h, int32(i))
	s.m.mu.Unlock()
	return t == typeNull
}

func (s *moduleStmt) ColumnInt64(i int) int64 {
	s.m.mu.Lock()
	v := s.m.x.ColumnInt64(s.h, int32(i))
	s.m.mu.Unlock()
	return v
}

func (s *moduleStmt) ColumnInt(i int) int { return int(s.ColumnInt64(i)) }

func (s *moduleStmt) ColumnText(i int) string {
	m := s.m
	m.mu.Lock()
	t := m.text(m.x.ColumnText(s.h, int32(i)))
	m.mu.Unlock()
	return t
}

func (s *moduleStmt) VMSteps() int64 {
	s.m.mu.Lock()
	n := s.m.x.StmtStatus(s.h, statVMStep, 1)
	s.m.mu.Unlock()
	return int64(n)
}

func (s *moduleStmt) Close() error {
	if s.h == 0 {
		return nil
	}
	s.m.mu.Lock()
	h := s.h
	s.h = 0
	return s.done(s.m.x.Finalize(h))
}
