package wasmbuild

import (
	"bytes"
	"testing"
)

// memoryImage is the memory a module's data segments write, as bytes from
// address 0 to the end of the last segment.
func memoryImage(t *testing.T, mod []byte) (image []byte, segments int) {
	t.Helper()
	for i := 8; i < len(mod); {
		n, j, err := uleb(mod, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if mod[i] == 11 {
			segs, err := dataSegments(mod[j : j+n])
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range segs {
				if end := int(s.off) + len(s.data); end > len(image) {
					image = append(image, make([]byte, end-len(image))...)
				}
				copy(image[s.off:], s.data)
			}
			segments = len(segs)
		}
		i = j + n
	}
	return image, segments
}

// section returns a module's section: its id, then its length and body.
func section(id byte, body []byte) []byte {
	return append(appendULEB([]byte{id}, len(body)), body...)
}

// TestMergeData: merging data segments leaves the memory a module starts
// with the same byte for byte, and every other section as it was; only
// segments no more than the gap apart become one.
func TestMergeData(t *testing.T) {
	segs := []segment{
		{0, []byte("go")},
		{2, []byte("adjacent")},                 // no gap
		{10 + 5, []byte("five")},                // 5 zeros after the last
		{19 + 64, []byte("sixty-four")},         // exactly the gap
		{93 + 65, []byte("sixty-five")},         // one more than the gap: a segment of its own
		{1 << 20, bytes.Repeat([]byte{7}, 300)}, // far away, offset in three bytes
	}
	var data []byte
	data = appendULEB(data, len(segs))
	for _, s := range segs {
		data = append(append(data, 0, 0x41), appendSLEB(nil, s.off)...)
		data = appendULEB(append(data, 0x0b), len(s.data))
		data = append(data, s.data...)
	}
	custom := section(0, append([]byte{4}, "name"...))
	code := section(10, []byte{1, 2, 0, 0x0b})
	mod := append([]byte("\x00asm\x01\x00\x00\x00"), code...)
	mod = append(append(mod, section(11, data)...), custom...)

	merged, err := mergeData(mod, 64)
	if err != nil {
		t.Fatal(err)
	}
	before, n := memoryImage(t, mod)
	after, m := memoryImage(t, merged)
	if !bytes.Equal(before, after) {
		t.Errorf("the merged module starts with other memory")
	}
	if n != 6 || m != 3 {
		t.Errorf("%d segments merged into %d, want 6 into 3", n, m)
	}
	if !bytes.HasPrefix(merged, mod[:8+len(code)]) || !bytes.HasSuffix(merged, custom) {
		t.Errorf("the sections around the data section changed")
	}
	if _, err := mergeData(append(mod, section(12, []byte{1})...), 64); err == nil {
		t.Errorf("a data count section was not refused")
	}
	if _, err := mergeData(mod[:len(mod)-len(custom)-3], 64); err == nil {
		t.Errorf("a cut module was not refused")
	}
}
