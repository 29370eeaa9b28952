package webdriver

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// findFirefox finds Debian's firefox-esr, or $TWICE_FIREFOX.
func findFirefox() (string, error) {
	if p := os.Getenv("TWICE_FIREFOX"); p != "" {
		return p, nil
	}
	if p := lookPath("firefox-esr", "firefox"); p != "" {
		return p, nil
	}
	return "", errors.New("no Firefox (apt-get install firefox-esr, or set TWICE_FIREFOX)")
}

// firefoxPrefs keep a test's Firefox to the page: no first-run pages, no
// updates, telemetry or studies reaching for a network it does not have.
const firefoxPrefs = `user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.disabledForTesting", true);
user_pref("app.normandy.enabled", false);
user_pref("messaging-system.rsexperimentloader.enabled", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
`

var bidiURL = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// startFirefox starts a headless Firefox with a fresh profile, on a port
// it picks, and opens a BiDi session on its first tab.
func startFirefox(tb testing.TB, bin string) (Page, error) {
	profile := tb.TempDir()
	if err := os.WriteFile(filepath.Join(profile, "user.js"), []byte(firefoxPrefs), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0", "about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := bidiURL.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("no WebDriver BiDi port from Firefox within 60 s")
	}
	ctx, cancel := context.WithCancel(context.Background())
	conn, _, err := websocket.Dial(ctx, url+"/session", nil)
	if err != nil {
		cancel()
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	conn.SetReadLimit(64 << 20)
	b := &bidi{cmd: cmd, conn: conn, ctx: ctx, cancel: cancel, waiting: map[int]chan bidiReply{}}
	go b.read()
	if _, err := b.call("session.new", map[string]any{"capabilities": map[string]any{}}); err != nil {
		b.Close()
		return nil, err
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	raw, err := b.call("browsingContext.getTree", map[string]any{})
	if err == nil {
		err = json.Unmarshal(raw, &tree)
	}
	if err != nil || len(tree.Contexts) == 0 {
		b.Close()
		return nil, fmt.Errorf("no tab to drive: %v", err)
	}
	b.context = tree.Contexts[0].Context
	return b, nil
}

// bidi is a Firefox tab driven over WebDriver BiDi.
type bidi struct {
	cmd     *exec.Cmd
	conn    *websocket.Conn
	ctx     context.Context
	cancel  context.CancelFunc
	context string

	mu      sync.Mutex
	next    int
	waiting map[int]chan bidiReply
	closed  error
}

type bidiReply struct {
	Result json.RawMessage
	Err    error
}

// read delivers each reply to the call waiting for its id; events are
// not used.
func (b *bidi) read() {
	for {
		_, data, err := b.conn.Read(b.ctx)
		if err != nil {
			b.mu.Lock()
			b.closed = err
			for id, ch := range b.waiting {
				ch <- bidiReply{Err: fmt.Errorf("the BiDi connection closed: %w", err)}
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m struct {
			ID      *int            `json:"id"`
			Type    string          `json:"type"`
			Result  json.RawMessage `json:"result"`
			Error   string          `json:"error"`
			Message string          `json:"message"`
		}
		if json.Unmarshal(data, &m) != nil || m.ID == nil {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[*m.ID]
		delete(b.waiting, *m.ID)
		b.mu.Unlock()
		if ch == nil {
			continue
		}
		if m.Type == "error" {
			ch <- bidiReply{Err: fmt.Errorf("%s: %s", m.Error, m.Message)}
		} else {
			ch <- bidiReply{Result: m.Result}
		}
	}
}

// call sends one command and waits for its reply, at most two minutes.
func (b *bidi) call(method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	if b.closed != nil {
		b.mu.Unlock()
		return nil, b.closed
	}
	b.next++
	id := b.next
	ch := make(chan bidiReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := b.conn.Write(b.ctx, websocket.MessageText, msg); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.Result, r.Err
	case <-time.After(2 * time.Minute):
		return nil, fmt.Errorf("%s: no reply within 2 minutes", method)
	}
}

func (b *bidi) Goto(url string) error {
	_, err := b.call("browsingContext.navigate", map[string]any{"context": b.context, "url": url, "wait": "complete"})
	return err
}

func (b *bidi) Eval(js string, out any) error {
	raw, err := b.call("script.evaluate", map[string]any{
		"expression":      wrap(js),
		"target":          map[string]any{"context": b.context},
		"awaitPromise":    true,
		"resultOwnership": "none",
	})
	if err != nil {
		return err
	}
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Type  string `json:"type"`
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if r.Type == "exception" {
		return fmt.Errorf("the page threw: %s", strings.TrimSpace(r.ExceptionDetails.Text))
	}
	return decode(r.Result.Value, out)
}

func (b *bidi) Resize(width, height int) error {
	_, err := b.call("browsingContext.setViewport", map[string]any{
		"context": b.context, "viewport": map[string]any{"width": width, "height": height},
	})
	return err
}

func (b *bidi) Screenshot() ([]byte, error) {
	raw, err := b.call("browsingContext.captureScreenshot", map[string]any{"context": b.context})
	if err != nil {
		return nil, err
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

func (b *bidi) Close() error {
	b.call("browser.close", map[string]any{})
	b.cancel()
	b.conn.CloseNow()
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
	return nil
}
