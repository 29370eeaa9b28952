package lessons

import (
	"io/fs"
	"os"
)

// OpenRegular opens the file name on disk for reading once check accepts
// what it is, without blocking where the system can ([OpenNonblock]), and
// checks the opened file again, in case another was swapped in between:
// a named pipe or a device refused by check can neither stall nor flood
// the reader.
func OpenRegular(name string, check func(fs.FileInfo) error) (*os.File, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := check(fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|OpenNonblock, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = check(fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
