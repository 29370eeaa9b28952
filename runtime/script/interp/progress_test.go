package interp

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestProgress checks that Options.Progress hears every race of each race
// command and every lease run of a load, in order, and that listening
// changes nothing in the run.
func TestProgress(t *testing.T) {
	const src = "race read 3\nrace atomic 2\nload 10 --processing fixed:500 --lease 1,2\n"
	var heard []string
	with := Run(src, Options{Seed: 4, Progress: func(done, of int, what string) {
		heard = append(heard, fmt.Sprintf("%d/%d %s", done, of, what))
	}})
	want := []string{"1/3 races", "2/3 races", "3/3 races", "1/2 races", "2/2 races", "1/2 lease runs", "2/2 lease runs"}
	if !slices.Equal(heard, want) {
		t.Errorf("Progress heard %q, want %q", heard, want)
	}
	if with.Error != nil {
		t.Fatalf("the script failed: %v", with.Error)
	}
	a, _ := with.MarshalJSON()
	b, _ := Run(src, Options{Seed: 4}).MarshalJSON()
	if !bytes.Equal(a, b) {
		t.Errorf("a run with Progress differs from one without:\n%s\n%s", a, b)
	}
}
