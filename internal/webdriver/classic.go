package webdriver

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// miniBrowsers are where Debian's WebKitGTK packages put MiniBrowser,
// the browser WebKitWebDriver drives.
var miniBrowsers = []string{
	"/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
	"/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
	"/usr/lib/x86_64-linux-gnu/webkitgtk-6.0/MiniBrowser",
	"/usr/libexec/webkit2gtk-4.1/MiniBrowser",
}

// findWebKit finds WebKitWebDriver (Debian's webkit2gtk-driver), the
// MiniBrowser beside it, and an X display or Xvfb to give it one.
func findWebKit() (string, error) {
	driver := lookPath("WebKitWebDriver")
	if driver == "" {
		return "", errors.New("no WebKitWebDriver (apt-get install webkit2gtk-driver xvfb)")
	}
	if miniBrowser() == "" {
		return "", errors.New("no MiniBrowser beside WebKitWebDriver (apt-get install webkit2gtk-driver)")
	}
	if os.Getenv("DISPLAY") == "" && lookPath("Xvfb") == "" {
		return "", errors.New("no X display and no Xvfb (apt-get install xvfb)")
	}
	return driver, nil
}

func miniBrowser() string {
	if p := os.Getenv("TWICE_MINIBROWSER"); p != "" {
		return p
	}
	for _, p := range miniBrowsers {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// startWebKit starts an X server of its own (Xvfb, unless DISPLAY is
// set), WebKitWebDriver on a free port, and a session in MiniBrowser.
func startWebKit(tb testing.TB, driver string) (Page, error) {
	w := &classic{client: &http.Client{Timeout: 2 * time.Minute}}
	env := os.Environ()
	if os.Getenv("DISPLAY") == "" {
		display, xvfb, err := startXvfb()
		if err != nil {
			return nil, err
		}
		w.procs = append(w.procs, xvfb)
		env = append(env, "DISPLAY="+display)
	}
	port, err := freePort()
	if err != nil {
		w.Close()
		return nil, err
	}
	cmd := exec.Command(driver, fmt.Sprintf("--port=%d", port), "--host=127.0.0.1")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	w.procs = append(w.procs, cmd)
	w.base = fmt.Sprintf("http://127.0.0.1:%d", port)
	// The driver answers once it listens.
	for i := 0; ; i++ {
		resp, err := http.Get(w.base + "/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i == 300 {
			w.Close()
			return nil, errors.New("WebKitWebDriver did not answer within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"webkitgtk:browserOptions": map[string]any{"binary": miniBrowser(), "args": []string{"--automation"}},
	}}}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := w.do("POST", "/session", caps, &s); err != nil {
		w.Close()
		return nil, fmt.Errorf("a MiniBrowser session: %w", err)
	}
	w.session = "/session/" + s.SessionID
	// A first run from a cold page compiles the runtime: give a script
	// two minutes, as the BiDi side does, not the driver's 30 s.
	if err := w.do("POST", w.session+"/timeouts", map[string]any{"script": 120_000}, nil); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// startXvfb starts an X server on a display it chooses (-displayfd) and
// returns the display's name.
func startXvfb() (string, *exec.Cmd, error) {
	r, wr, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	cmd := exec.Command(lookPath("Xvfb"), "-displayfd", "3", "-screen", "0", "1400x1000x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{wr}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		wr.Close()
		return "", nil, err
	}
	wr.Close()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			cmd.Process.Kill()
			cmd.Wait()
			return "", nil, errors.New("no display from Xvfb")
		}
		return ":" + n, cmd, nil
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return "", nil, errors.New("no display from Xvfb within 30 s")
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// classic is a MiniBrowser window driven over classic WebDriver.
type classic struct {
	client  *http.Client
	base    string
	session string
	procs   []*exec.Cmd // the driver and Xvfb, ended by Close
}

// do sends one command; a WebDriver error comes back as an error.
func (w *classic) do(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, w.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var r struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return fmt.Errorf("%s %s: %s: %w", method, path, resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		json.Unmarshal(r.Value, &e)
		return fmt.Errorf("%s %s: %s: %s", method, path, e.Error, e.Message)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.Value, out)
}

func (w *classic) Goto(url string) error {
	return w.do("POST", w.session+"/url", map[string]any{"url": url}, nil)
}

func (w *classic) Eval(js string, out any) error {
	script := "const done = arguments[arguments.length - 1];" +
		wrap(js) + ".then((v) => done({ok: v}), (e) => done({err: String(e && e.stack || e)}));"
	var r struct {
		OK  *string `json:"ok"`
		Err string  `json:"err"`
	}
	if err := w.do("POST", w.session+"/execute/async", map[string]any{"script": script, "args": []any{}}, &r); err != nil {
		return err
	}
	if r.OK == nil {
		return fmt.Errorf("the page threw: %s", r.Err)
	}
	return decode(*r.OK, out)
}

// Resize sets the window so that the viewport is width by height: the
// window's frame (MiniBrowser's toolbar) is measured and added. GTK keeps
// the window at least as wide as MiniBrowser's toolbar (about 450 px of
// viewport): a narrower width gives an *ErrTooNarrow, and the window as
// narrow as it goes.
func (w *classic) Resize(width, height int) error {
	if err := w.do("POST", w.session+"/window/rect", map[string]any{"width": width, "height": height}, nil); err != nil {
		return err
	}
	var inner [2]int
	if err := w.Eval("[window.innerWidth, window.innerHeight]", &inner); err != nil {
		return err
	}
	if err := w.do("POST", w.session+"/window/rect", map[string]any{"width": 2*width - inner[0], "height": 2*height - inner[1]}, nil); err != nil {
		return err
	}
	if err := w.Eval("[window.innerWidth, window.innerHeight]", &inner); err != nil {
		return err
	}
	if inner[0] != width {
		return &ErrTooNarrow{Want: width, Got: inner[0]}
	}
	return nil
}

func (w *classic) Screenshot() ([]byte, error) {
	var s string
	if err := w.do("GET", w.session+"/screenshot", nil, &s); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(s)
}

func (w *classic) Close() error {
	if w.session != "" {
		w.do("DELETE", w.session, nil, nil)
		w.session = ""
	}
	for i := len(w.procs) - 1; i >= 0; i-- {
		p := w.procs[i]
		p.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			p.Process.Kill()
			<-done
		}
	}
	w.procs = nil
	return nil
}
