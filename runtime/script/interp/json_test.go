package interp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
	"github.com/twice-lab/twice/runtime/script/result"
)

// plainResult has Result's fields and tags but not its MarshalJSON, so
// encoding/json encodes it by reflection: the reference the hand-written
// encoder must match byte for byte.
type plainResult result.Result

func checkJSON(t *testing.T, name string, r *result.Result) {
	t.Helper()
	want, err := json.Marshal((*plainResult)(r))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: MarshalJSON differs from encoding/json at byte %d:\n got ...%s\nwant ...%s", name, i, clip(got[i:]), clip(want[i:]))
	}
	// And through encoding/json, as `twice run --json` calls it.
	var via bytes.Buffer
	enc := json.NewEncoder(&via)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatalf("%s: encoding/json rejects MarshalJSON's output: %v", name, err)
	}
	var ref bytes.Buffer
	enc = json.NewEncoder(&ref)
	enc.SetIndent("", "  ")
	enc.Encode((*plainResult)(r))
	if via.String() != ref.String() {
		t.Errorf("%s: indented output differs", name)
	}
}

func clip(b []byte) []byte { return b[:min(len(b), 80)] }

func TestMarshalJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, g := range goldenRuns(t) {
		checkJSON(t, g.file, g.res)
		// And as a run that drew no pictures.
		plain := *g.res
		plain.Timeline, plain.Chart = nil, nil
		checkJSON(t, g.file+" (no pictures)", &plain)
	}
}

// TestMarshalJSONStrings covers what no transcript prints: every control
// character, HTML-significant bytes, the JavaScript line separators,
// invalid UTF-8 and nil lists, set in every string field.
func TestMarshalJSONStrings(t *testing.T) {
	var sb strings.Builder
	for c := 0; c < 0x80; c++ {
		sb.WriteByte(byte(c))
	}
	sb.WriteString("é日本\u2028\u2029\U0001F600\xff\xc3(\xe2\x82end\ufffd")
	hostile := []string{"", sb.String(), `a"b\c</script>&amp;`, "\xed\xa0\x80"}
	lease := int64(-5)
	for _, s := range hostile {
		r := &result.Result{
			Seed:         1<<64 - 1,
			Transcript:   []string{s, s},
			Effects:      []result.Effect{{Order: s, Run: s, Attempt: -1, Send: 2, Worker: s, AtUS: -1 << 63}},
			Summary:      []diagnosis.Summary{{Order: s, Tags: nil, Kind: diagnosis.PublishTwice, Diagnosis: s}, {Tags: []string{s}}},
			Jobs:         []result.Job{{ID: 1 << 62, Order: s, Status: s, Run: s}, {LeaseUS: &lease}},
			Races:        []result.RaceTally{{Claim: s, Workers: 8}},
			Explorations: []result.Exploration{{Claim: s, Orderings: s, Method: s}, {Shortest: []result.ExploreStep{{Worker: s, What: s}}}},
			Trace:        []result.Event{{Proc: s, Kind: event.Replayed, Step: s}, {Run: s, Job: &result.Job{Order: s}, Effect: &result.Effect{Worker: s}}},
			Timeline:     &result.Timeline{SVG: s, EventX: []int{}},
			Error:        &lang.Error{Kind: s, Msg: s, Line: 3},
			ExitCode:     2,
			Cut:          &result.Cut{Budget: s, Limit: -1 << 63, Auto: true},
			Heavy:        true,
		}
		checkJSON(t, "hostile", r)
	}
	checkJSON(t, "zero", &result.Result{})
	checkJSON(t, "nil timeline lists", &result.Result{Timeline: &result.Timeline{}})
}

func FuzzMarshalJSON(f *testing.F) {
	f.Add("a<b>&\"\\\n\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		checkJSON(t, "fuzz", &result.Result{Transcript: []string{s}, Error: &lang.Error{Msg: s}, Trace: []result.Event{{Run: s}}})
	})
}
