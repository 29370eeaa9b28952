package wasmbuild

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twice-lab/twice/third_party/sqlitewasm"
)

func TestLoadRuntime(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "twice.0123456789.wasm")
	os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	os.WriteFile(filepath.Join(dir, "wasm_exec.abcdef0123.js"), []byte("// exec"), 0o644)
	rt, err := LoadRuntime(wasm, "")
	if err != nil {
		t.Fatal(err)
	}
	if string(rt.WasmExec) != "// exec" {
		t.Errorf("wasm_exec.js next to the module not used: %q", rt.WasmExec)
	}
	if rt.SQLite != nil || !bytes.Equal(rt.SQLiteModule(), sqlitewasm.Wasm) {
		t.Errorf("with no SQLite module next to it, the runtime's is not the one this binary carries")
	}
	os.WriteFile(filepath.Join(dir, "sqlite3.fedcba9876.wasm"), []byte("\x00asm sqlite"), 0o644)
	if rt, err := LoadRuntime(wasm, ""); err != nil || string(rt.SQLiteModule()) != "\x00asm sqlite" {
		t.Errorf("the SQLite module next to the module not used: %v", err)
	}
	bad := filepath.Join(dir, "bad.wasm")
	os.WriteFile(bad, []byte("hello"), 0o644)
	if _, err := LoadRuntime(bad, ""); err == nil || !strings.Contains(err.Error(), "not a WebAssembly module") {
		t.Errorf("LoadRuntime of a non-wasm file: %v", err)
	}
}

func TestBuildRuntimeOutsideModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	_, err := BuildRuntime(context.Background(), BuildOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "--wasm FILE") {
		t.Errorf("BuildRuntime outside the source tree: %v, want an error that suggests --wasm", err)
	}
}

// TestBuildProgress checks that a long build keeps saying that it is still
// running, and stops saying so once it has finished.
func TestBuildProgress(t *testing.T) {
	var out strings.Builder
	err := whileTicking(&out, 10*time.Millisecond, "still building the runtime", func() error {
		time.Sleep(55 * time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(out.String(), "still building the runtime (")
	if lines < 2 {
		t.Errorf("a 55 ms build with a 10 ms tick said %d progress line(s):\n%s", lines, out.String())
	}
	n := out.Len()
	time.Sleep(30 * time.Millisecond)
	if out.Len() != n {
		t.Errorf("progress went on after the build ended")
	}
	if err := whileTicking(nil, time.Millisecond, "x", func() error { return nil }); err != nil {
		t.Error(err)
	}
}

// TestLoadRuntimeReadsRegularFiles: --wasm /dev/zero read gigabytes
// until the memory ran out, and a named pipe blocked the command for
// ever. Each file of a prebuilt runtime is refused in one line unless
// it is a regular file of at most MaxPrebuiltBytes, read or not.
func TestLoadRuntimeReadsRegularFiles(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "twice.wasm")
	os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	big := filepath.Join(dir, "big", "twice.wasm")
	os.Mkdir(filepath.Dir(big), 0o755)
	os.WriteFile(big, []byte("\x00asm"), 0o644)
	if err := os.Truncate(big, MaxPrebuiltBytes+1); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		dir:  dir + ": refused: it is a folder, not a regular file; a prebuilt runtime is read from regular files",
		big:  big + ": refused: it is 67108865 bytes, more than the 64 MB a prebuilt runtime's file may have",
		wasm: "", // with its wasm_exec.js a device, below
	}
	if _, err := os.Stat(os.DevNull); err == nil && filepath.Separator == '/' {
		cases["/dev/zero"] = "/dev/zero: refused: it is a device, not a regular file; a prebuilt runtime is read from regular files"
		os.Symlink("/dev/zero", filepath.Join(dir, "wasm_exec.js"))
		cases[wasm] = filepath.Join(dir, "wasm_exec.js") + ": refused: it is a device, not a regular file; a prebuilt runtime is read from regular files"
	}
	if err := exec.Command("mkfifo", filepath.Join(dir, "fifo.wasm")).Run(); err == nil {
		cases[filepath.Join(dir, "fifo.wasm")] = filepath.Join(dir, "fifo.wasm") + ": refused: it is a named pipe (FIFO), not a regular file; a prebuilt runtime is read from regular files"
	}
	for file, want := range cases {
		if want == "" {
			continue
		}
		done := make(chan error, 1)
		go func() {
			_, err := LoadRuntime(file, "")
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != want {
				t.Errorf("LoadRuntime(%s): %v\nwant %s", file, err, want)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("LoadRuntime(%s) still reading after 3 s", file)
		}
	}
}
