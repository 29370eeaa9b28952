package server

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBrowserCountsAndDiagnosisOnce opens lesson 10 as a reader does and
// reads what its two fenced blocks show before anything runs: the effects
// table's caption counts one effect and one refusal the way the
// transcript and the panel do, and each diagnosis is said once, in the
// panel, not again in the page's transcript.
func TestBrowserCountsAndDiagnosisOnce(t *testing.T) {
	ctx, _ := browser(t, 1280, 900)
	srv, err := NewServer(Options{Runtime: fakeRuntime(), Brotli: BrotliNever}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	navigate(t, ctx, hs.URL+"/lessons/fencing/")
	js[bool](t, ctx, `tp.diag = (n) => tp.q(n, "section.diagnosis").textContent; tp.caption = (n) => tp.q(n, "table.effects caption").textContent; true`)

	transcript := js[string](t, ctx, `tp.transcript(0)`)
	if !strings.Contains(transcript, "order-77: 1 effect, 1 refused, from 2 run(s)") || strings.Contains(transcript, "diagnosis:") {
		t.Errorf("block 1's transcript should count 1 effect, 1 refused and leave the diagnosis to the panel:\n%s", transcript)
	}
	if c := js[string](t, ctx, `tp.caption(0)`); !strings.Contains(c, "1 effect, 1 refused") {
		t.Errorf("block 1's effects table caption = %q, want it to count 1 effect, 1 refused", c)
	}
	if d := js[string](t, ctx, `tp.diag(0)`); !strings.Contains(d, "1 effect, 1 refused") || !strings.Contains(d, "fencing kept a stale run out") || strings.Count(d, "fencing kept a stale run out") != 1 {
		t.Errorf("block 1's diagnosis panel = %q", d)
	}
	transcript = js[string](t, ctx, `tp.transcript(1)`)
	d := js[string](t, ctx, `tp.diag(1)`)
	if strings.Contains(transcript, "diagnosis:") || !strings.Contains(d, "processing outlived the lease") {
		t.Errorf("block 2: the diagnosis should be in the panel only:\n%s\npanel: %s", transcript, d)
	}
	if c := js[string](t, ctx, `tp.caption(1)`); !strings.Contains(c, "2 effects") {
		t.Errorf("block 2's effects table caption = %q, want 2 effects", c)
	}
}
