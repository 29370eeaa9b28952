package wasmbuild

import (
	"path/filepath"
	"testing"
)

// bundle -o DIR writes DIR/twice, and says so.
func TestBundleTarget(t *testing.T) {
	dir := t.TempDir()
	abs, shown, err := bundleTarget(dir, "linux")
	if err != nil || abs != filepath.Join(dir, "twice") || shown != filepath.Join(dir, "twice") {
		t.Errorf("bundleTarget(dir) = %q, %q, %v", abs, shown, err)
	}
	if _, shown, _ := bundleTarget(dir, "windows"); shown != filepath.Join(dir, "twice.exe") {
		t.Errorf("windows: %q", shown)
	}
	file := filepath.Join(dir, "mytwice")
	if abs, shown, _ := bundleTarget(file, "linux"); abs != file || shown != file {
		t.Errorf("bundleTarget(file) = %q, %q", abs, shown)
	}
}
