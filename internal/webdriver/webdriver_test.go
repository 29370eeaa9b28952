package webdriver

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/twice-lab/twice/internal/browsertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Report(os.Stderr)
	os.Exit(code)
}

// Each engine loads a page, evaluates a promise in it, resizes to a
// phone's width and takes a screenshot: what the reader's-path tests
// stand on.
func TestEngines(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>t</title><p id=p>hello</p><script>window.answer = 42</script>`)
	}))
	defer srv.Close()
	for _, e := range Engines {
		t.Run(e.Name, func(t *testing.T) {
			p := Require(t, e)
			if err := p.Goto(srv.URL); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Text   string `json:"text"`
				Answer int    `json:"answer"`
			}
			if err := p.Eval(`new Promise((r) => setTimeout(() => r({text: document.getElementById("p").textContent, answer: window.answer}), 10))`, &got); err != nil {
				t.Fatal(err)
			}
			if got.Text != "hello" || got.Answer != 42 {
				t.Errorf("read %+v", got)
			}
			if err := p.Eval(`Promise.reject(new Error("no"))`, nil); err == nil {
				t.Error("a rejected promise gave no error")
			}
			var narrow *ErrTooNarrow
			if err := p.Resize(390, 844); errors.As(err, &narrow) && e.Name == "webkit" {
				t.Logf("not a phone's width: %v", err)
			} else if err != nil {
				t.Fatal(err)
			} else {
				var w int
				if err := p.Eval(`window.innerWidth`, &w); err != nil || w != 390 {
					t.Errorf("after Resize(390, 844) the viewport is %d wide (%v)", w, err)
				}
			}
			png, err := p.Screenshot()
			if err != nil || len(png) < 100 || string(png[1:4]) != "PNG" {
				t.Errorf("screenshot: %d bytes, %v", len(png), err)
			}
		})
	}
}
