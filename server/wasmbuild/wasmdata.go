package wasmbuild

import (
	"errors"
	"fmt"
)

// dataGap is the widest run of zeros between two of the Go module's data
// segments that mergeData fills in to make one segment of them.
const dataGap = 64

// mergeData returns the wasm module mod with the active data segments of
// its data section merged wherever no more than gap bytes of memory lie
// between one and the next, the bytes between them written as zeros.
// Memory starts zeroed, so the module's memory after instantiation is
// the same byte for byte; every other section is left as it is.
//
// Go's linker starts a new data segment at every run of zeros it can
// skip, and each costs a header of its own (flags, an offset expression,
// a length): the browser's module had 55,000 of them, about 60 kB of
// brotli that a few hundred segments and the zeros between them do
// without (docs/PERFORMANCE.md).
func mergeData(mod []byte, gap int) ([]byte, error) {
	if len(mod) < 8 || string(mod[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm module")
	}
	out := append(make([]byte, 0, len(mod)), mod[:8]...)
	for i := 8; i < len(mod); {
		id := mod[i]
		n, j, err := uleb(mod, i+1)
		if err != nil || j+n > len(mod) {
			return nil, errors.New("wasm module: a section runs past the end")
		}
		if id == 12 {
			return nil, errors.New("wasm module: has a data count section, which mergeData does not update")
		}
		if id != 11 {
			out = append(out, mod[i:j+n]...)
			i = j + n
			continue
		}
		segs, err := dataSegments(mod[j : j+n])
		if err != nil {
			return nil, err
		}
		body := appendULEB(nil, 0) // patched below
		count := 0
		for k := 0; k < len(segs); {
			off, data := segs[k].off, segs[k].data
			end := off + int64(len(data))
			for k++; k < len(segs) && segs[k].off >= end && segs[k].off-end <= int64(gap); k++ {
				data = append(append(data, make([]byte, segs[k].off-end)...), segs[k].data...)
				end = segs[k].off + int64(len(segs[k].data))
			}
			body = append(body, 0, 0x41) // active, memory 0; i32.const
			body = appendSLEB(body, off)
			body = append(body, 0x0b) // end
			body = appendULEB(body, len(data))
			body = append(body, data...)
			count++
		}
		body = append(appendULEB(nil, count), body[1:]...)
		out = append(out, 11)
		out = appendULEB(out, len(body))
		out = append(out, body...)
		i = j + n
	}
	return out, nil
}

// segment is one active data segment: its offset in memory and its bytes.
type segment struct {
	off  int64
	data []byte
}

// dataSegments reads a data section's segments, which must all be active
// segments of memory 0 at a constant offset, as Go's linker writes them.
// The bytes are copies.
func dataSegments(sec []byte) ([]segment, error) {
	bad := errors.New("wasm module: a data segment this reader does not understand")
	cnt, k, err := uleb(sec, 0)
	if err != nil {
		return nil, bad
	}
	segs := make([]segment, 0, cnt)
	for range cnt {
		if k+2 > len(sec) || sec[k] != 0 || sec[k+1] != 0x41 {
			return nil, bad
		}
		off, k2, err := sleb(sec, k+2)
		if err != nil || k2 >= len(sec) || sec[k2] != 0x0b {
			return nil, bad
		}
		size, k3, err := uleb(sec, k2+1)
		if err != nil || k3+size > len(sec) {
			return nil, bad
		}
		segs = append(segs, segment{off, append([]byte(nil), sec[k3:k3+size]...)})
		k = k3 + size
	}
	if k != len(sec) {
		return nil, fmt.Errorf("wasm module: %d bytes after the last data segment", len(sec)-k)
	}
	return segs, nil
}

var errLEB = errors.New("wasm module: a number runs past the end")

func uleb(b []byte, i int) (int, int, error) {
	v, shift := 0, 0
	for ; i < len(b) && shift < 35; shift += 7 {
		c := b[i]
		i++
		v |= int(c&0x7f) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
	return 0, i, errLEB
}

func sleb(b []byte, i int) (int64, int, error) {
	var v int64
	for shift := 0; i < len(b) && shift < 64; {
		c := b[i]
		i++
		v |= int64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i, nil
		}
	}
	return 0, i, errLEB
}

func appendULEB(b []byte, v int) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendSLEB(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
