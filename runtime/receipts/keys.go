package receipts

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/twice-lab/twice/runtime/sqldb"
)

// The service's own table of idempotency keys, in a database of its own
// (not the queue's: the service is another system). Each method is one
// autocommit statement, so that a check and the insert after it are two
// steps another request can come between, and a claim is one.
const keySchema = `CREATE TABLE idempotency_keys (
	key       TEXT PRIMARY KEY,
	stored_at INTEGER NOT NULL, -- virtual µs when the key was stored
	first_run TEXT NOT NULL     -- the run whose request did the effect: a replay gets its answer
)`

const (
	// A key stored at or before cutoff (now - TTL) is forgotten: the
	// statements treat it as absent.
	stmtKeyCheck  = `SELECT first_run FROM idempotency_keys WHERE key = ? AND stored_at > ?`
	stmtKeyInsert = `INSERT INTO idempotency_keys (key, stored_at, first_run) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET stored_at = excluded.stored_at, first_run = excluded.first_run`
	stmtKeyClaim = `INSERT INTO idempotency_keys (key, stored_at, first_run) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET stored_at = excluded.stored_at, first_run = excluded.first_run
		WHERE idempotency_keys.stored_at <= ?`
	stmtKeyAny   = `SELECT stored_at FROM idempotency_keys WHERE key = ?`
	stmtKeyReset = `DELETE FROM idempotency_keys`
	stmtKeyDump  = `SELECT key, stored_at, first_run FROM idempotency_keys ORDER BY key`
)

// KeyStore is the table of keys on one connection of its own database.
type KeyStore struct {
	name  string
	c     sqldb.Conn
	stmts map[string]sqldb.Stmt
}

var keySeq atomic.Uint64

// Opening a database is the most expensive thing a short run does (natively
// it instantiates the driver's SQLite); finished stores are emptied and
// kept for the next one, as the queue's databases are.
var (
	keyPoolMu sync.Mutex
	keyPool   []*KeyStore
)

const maxKeyPool = 4

// OpenKeys returns an empty key store: a pooled one, or a new one.
func OpenKeys() (*KeyStore, error) {
	keyPoolMu.Lock()
	if n := len(keyPool); n > 0 {
		ks := keyPool[n-1]
		keyPool = keyPool[:n-1]
		keyPoolMu.Unlock()
		return ks, nil
	}
	keyPoolMu.Unlock()
	name := fmt.Sprintf("/twice-keys-%d", keySeq.Add(1))
	c, err := sqldb.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if err := c.Exec(keySchema); err != nil {
		c.Close()
		sqldb.Delete(name)
		return nil, err
	}
	return &KeyStore{name: name, c: c, stmts: map[string]sqldb.Stmt{}}, nil
}

// Put empties the store and keeps it for the next OpenKeys, or closes it.
func (ks *KeyStore) Put() {
	if err := ks.Reset(); err == nil {
		keyPoolMu.Lock()
		if len(keyPool) < maxKeyPool {
			keyPool = append(keyPool, ks)
			keyPoolMu.Unlock()
			return
		}
		keyPoolMu.Unlock()
	}
	for _, s := range ks.stmts {
		s.Close()
	}
	ks.c.Close()
	sqldb.Delete(ks.name)
}

func (ks *KeyStore) prepare(sql string) (sqldb.Stmt, error) {
	if s, ok := ks.stmts[sql]; ok {
		return s, nil
	}
	s, err := ks.c.Prepare(sql)
	if err != nil {
		return nil, err
	}
	ks.stmts[sql] = s
	return s, nil
}

// cutoff is the instant at or before which a key stored is forgotten.
func cutoff(now, ttl int64) int64 {
	if ttl <= 0 {
		return math.MinInt64
	}
	return now - ttl
}

// Check is the check of check-then-act: whether key is stored and not
// older than ttl at now (0: kept for ever), and the run that stored it.
func (ks *KeyStore) Check(key string, now, ttl int64) (string, bool, error) {
	s, err := ks.prepare(stmtKeyCheck)
	if err != nil {
		return "", false, err
	}
	defer s.Reset()
	s.BindText(1, key)
	s.BindInt64(2, cutoff(now, ttl))
	if !s.Step() {
		return "", false, s.Err()
	}
	return s.ColumnText(0), true, nil
}

// Insert stores key at now for run, over a forgotten or a live one: the
// act's second half in check-then-act, which trusts the check before it.
func (ks *KeyStore) Insert(key string, now int64, run string) error {
	_, err := ks.exec(stmtKeyInsert, func(s sqldb.Stmt) {
		s.BindText(1, key)
		s.BindInt64(2, now)
		s.BindText(3, run)
	})
	return err
}

// Claim stores key at now for run unless a live one (not older than ttl)
// is stored: one INSERT ... ON CONFLICT, decided by the rows it changed.
func (ks *KeyStore) Claim(key string, now, ttl int64, run string) (bool, error) {
	n, err := ks.exec(stmtKeyClaim, func(s sqldb.Stmt) {
		s.BindText(1, key)
		s.BindInt64(2, now)
		s.BindText(3, run)
		s.BindInt64(4, cutoff(now, ttl))
	})
	return n == 1, err
}

// Stored reports whether any row, live or forgotten, holds key. It is an
// observation for the evidence (was a key that let a request through new,
// or expired?), not a step of any protocol.
func (ks *KeyStore) Stored(key string) (bool, error) {
	s, err := ks.prepare(stmtKeyAny)
	if err != nil {
		return false, err
	}
	defer s.Reset()
	s.BindText(1, key)
	ok := s.Step()
	return ok, s.Err()
}

// StoredKey is one row of the table.
type StoredKey struct {
	Key      string
	StoredAt int64
	FirstRun string
}

// Dump returns every row, in key order.
func (ks *KeyStore) Dump() ([]StoredKey, error) {
	s, err := ks.prepare(stmtKeyDump)
	if err != nil {
		return nil, err
	}
	defer s.Reset()
	var rows []StoredKey
	for s.Step() {
		rows = append(rows, StoredKey{s.ColumnText(0), s.ColumnInt64(1), s.ColumnText(2)})
	}
	return rows, s.Err()
}

// Reset deletes every key.
func (ks *KeyStore) Reset() error {
	_, err := ks.exec(stmtKeyReset, nil)
	return err
}

// Restore replaces the table with rows: the explorer of interleavings puts
// the table back to a state it saw before.
func (ks *KeyStore) Restore(rows []StoredKey) error {
	if err := ks.Reset(); err != nil {
		return err
	}
	for _, r := range rows {
		if err := ks.Insert(r.Key, r.StoredAt, r.FirstRun); err != nil {
			return err
		}
	}
	return nil
}

func (ks *KeyStore) exec(sql string, bind func(sqldb.Stmt)) (int64, error) {
	s, err := ks.prepare(sql)
	if err != nil {
		return 0, err
	}
	if bind != nil {
		bind(s)
	}
	err = s.Exec()
	s.ClearBindings()
	if err != nil {
		return 0, err
	}
	return ks.c.Changes(), nil
}

var errNoStore = errors.New("receipts: dedupe is on but the key store is not open")
