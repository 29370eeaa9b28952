package class

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ncruces/go-sqlite3"
)

// A store is the SQLite file that keeps the class: its code and teacher
// key, each block's state and every vote. Only the writer goroutine uses
// it after open (the SQLite twice links is built single-threaded).
type store struct {
	c *sqlite3.Conn
}

const schema = `
CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks(block TEXT PRIMARY KEY, round INTEGER NOT NULL, shown INTEGER NOT NULL, closed INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS votes(block TEXT NOT NULL, round INTEGER NOT NULL, voter TEXT NOT NULL, choice TEXT NOT NULL, PRIMARY KEY(block, round, voter));
`

// openStore opens (creating it and its folder if need be) the file at
// path.
func openStore(path string) (*store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	c, err := sqlite3.Open(path)
	if err != nil {
		return nil, err
	}
	if err := c.Exec(schema); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &store{c: c}, nil
}

func (s *store) close() error { return s.c.Close() }

// meta returns the value named name, or "".
func (s *store) meta(name string) (string, error) {
	st, _, err := s.c.Prepare(`SELECT value FROM meta WHERE name = ?`)
	if err != nil {
		return "", err
	}
	defer st.Close()
	st.BindText(1, name)
	v := ""
	if st.Step() {
		v = st.ColumnText(0)
	}
	return v, st.Err()
}

func (s *store) setMeta(name, value string) error {
	st, _, err := s.c.Prepare(`INSERT OR REPLACE INTO meta(name, value) VALUES(?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	st.BindText(1, name)
	st.BindText(2, value)
	return st.Exec()
}

// load reads every block's state and vote into a map of block states.
func (s *store) load() (map[string]*blockState, int, error) {
	blocks := map[string]*blockState{}
	get := func(name string) *blockState {
		b := blocks[name]
		if b == nil {
			b = newBlockState()
			blocks[name] = b
		}
		return b
	}
	st, _, err := s.c.Prepare(`SELECT block, round, shown, closed FROM blocks`)
	if err != nil {
		return nil, 0, err
	}
	for st.Step() {
		b := get(st.ColumnText(0))
		b.round = min(max(st.ColumnInt(1), 1), MaxRounds)
		b.shown = st.ColumnInt(2) != 0
		b.closed = st.ColumnInt(3) != 0
	}
	err = errors.Join(st.Err(), st.Close())
	if err != nil {
		return nil, 0, err
	}
	st, _, err = s.c.Prepare(`SELECT block, round, voter, choice FROM votes`)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	for st.Step() {
		round := st.ColumnInt(1)
		if round < 1 || round > MaxRounds {
			continue
		}
		get(st.ColumnText(0)).put(round, st.ColumnText(2), st.ColumnText(3))
		n++
	}
	return blocks, n, errors.Join(st.Err(), st.Close())
}

// tx runs f in a transaction, committing it if f returns nil.
func (s *store) tx(f func() error) error {
	if err := s.c.Exec(`BEGIN IMMEDIATE`); err != nil {
		return err
	}
	if err := f(); err != nil {
		s.c.Exec(`ROLLBACK`)
		return err
	}
	if err := s.c.Exec(`COMMIT`); err != nil {
		s.c.Exec(`ROLLBACK`)
		return err
	}
	return nil
}

func (s *store) exec(sql string, args ...any) error {
	st, _, err := s.c.Prepare(sql)
	if err != nil {
		return err
	}
	defer st.Close()
	for i, a := range args {
		switch v := a.(type) {
		case string:
			st.BindText(i+1, v)
		case int:
			st.BindInt(i+1, v)
		case bool:
			st.BindBool(i+1, v)
		default:
			return fmt.Errorf("class store: argument %d of type %T", i+1, a)
		}
	}
	return st.Exec()
}

func (s *store) putVote(block string, round int, voter, choice string) error {
	return s.exec(`INSERT OR REPLACE INTO votes(block, round, voter, choice) VALUES(?, ?, ?, ?)`, block, round, voter, choice)
}

func (s *store) putBlock(block string, b *blockState) error {
	return s.exec(`INSERT OR REPLACE INTO blocks(block, round, shown, closed) VALUES(?, ?, ?, ?)`, block, b.round, b.shown, b.closed)
}

func (s *store) resetBlock(block string) error {
	if err := s.exec(`DELETE FROM votes WHERE block = ?`, block); err != nil {
		return err
	}
	return s.exec(`DELETE FROM blocks WHERE block = ?`, block)
}
