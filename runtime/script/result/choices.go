package result

import (
	"github.com/twice-lab/twice/runtime/event"
	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/script/diagnosis"
	"github.com/twice-lab/twice/runtime/script/lang"
)

// Choice is one value of a list the command language takes: a claim, a
// dedupe mode or a key choice, by name, with a few words on what it does.
// Alias is the name of the value it stands for, or its own name: no
// claim, mode or key is another's name today, and the page's lists keep
// the field.
type Choice struct {
	Name  string `json:"name"`
	Words string `json:"words"`
	Alias string `json:"alias"`
}

// KindChoice is one diagnosis kind as the page shows it: its name (a
// Summary's kind), its title, and whether it is good.
type KindChoice struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Good  bool   `json:"good"`
}

// ChoiceLists are the lists the browser's controls are built from, and
// the diagnosis kinds its verdicts are titled from. The server passes them
// to the page in twice.js's config, so that the page never keeps a second
// copy of a list the runtime owns.
type ChoiceLists struct {
	Claims  []Choice     `json:"claims"`
	Dedupes []Choice     `json:"dedupes"`
	Keys    []Choice     `json:"keys"`
	Kinds   []KindChoice `json:"kinds"`
	// MaxScript is the most bytes a script may have (lang.MaxScriptBytes):
	// the page refuses a link to a longer one before reading it.
	MaxScript int `json:"maxScript"`
	// Quiet names the event kinds whose steps read and write nothing
	// shared (event.Kind.Quiet): the presenter's step-through skips them.
	Quiet []string `json:"quiet"`
}

// Choices returns every claim (queue.Claims), dedupe mode
// (receipts.Dedupes), key choice (receipts.Keys) and diagnosis kind
// ([diagnosis.Kinds]), in their order, and the quiet event kinds.
func Choices() ChoiceLists {
	l := ChoiceLists{MaxScript: lang.MaxScriptBytes}
	for _, c := range queue.Claims() {
		l.Claims = append(l.Claims, Choice{c.String(), c.Words(), c.Alias().String()})
	}
	for _, d := range receipts.Dedupes() {
		l.Dedupes = append(l.Dedupes, Choice{d.String(), d.Words(), d.String()})
	}
	for _, k := range receipts.Keys() {
		l.Keys = append(l.Keys, Choice{k.String(), k.Words(), k.String()})
	}
	for _, k := range diagnosis.Kinds() {
		l.Kinds = append(l.Kinds, KindChoice{k.String(), k.Title(), k.Good()})
	}
	for _, k := range event.Kinds() {
		if k.Quiet() {
			l.Quiet = append(l.Quiet, k.String())
		}
	}
	return l
}
