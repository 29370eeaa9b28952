package main

import (
	"fmt"
	"io"
	"io/fs"

	"github.com/twice-lab/twice/lessons"
	"github.com/twice-lab/twice/runtime/script/lang"
)

// readScriptFile reads a script from the file name, or from stdin for
// "-", as twice run and twice case check --fix do: at most one byte more
// than lang.MaxScriptBytes (the parser then names the size, and where it
// goes over), and from a regular file only. A named pipe, a device (like
// /dev/zero), a socket or a folder is refused by name before it is
// opened for reading, and checked again once opened (a pipe swapped in
// between is opened without blocking where the system can), so that
// nothing can block the command or feed it gigabytes.
func readScriptFile(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if name != "-" {
		f, err := lessons.OpenRegular(name, func(fi fs.FileInfo) error { return regular(name, fi) })
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	return io.ReadAll(io.LimitReader(r, lang.MaxScriptBytes+1))
}

// regular refuses what readScriptFile does not read, in one line.
func regular(name string, fi fs.FileInfo) error {
	if kind := lessons.FileKind(fi.Mode()); kind != "" {
		return fmt.Errorf("%s: refused: it is %s, not a regular file; a script is read from a regular file or from standard input (-)", name, kind)
	}
	return nil
}
