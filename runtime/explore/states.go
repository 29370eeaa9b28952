package explore

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
)

//go:generate go run ./genstates

// ManyStates is what States returns for a race whose search is known to
// pass StatesTabled states without being counted: the count before it
// (one worker fewer) is already above that, and the search only grows with
// workers.
const ManyStates = 1 << 30

// StatesTabled bounds what the table counts: a search with one worker more
// than a count above it is not run to be counted, and is ManyStates.
const StatesTabled = 12_000

// statesText is the states table (see the package doc, "The states
// table").
//
//go:embed states.txt
var statesText string

// statesRow is one row of the table: the states ExploreRace executes
// steps from, for MinWorkers up to MaxWorkers workers.
type statesRow [MaxWorkers - MinWorkers + 1]int

// statesKey names a row: the claim by name, the service's dedupe mode,
// the kind of key the workers send and the worker flags.
type statesKey struct {
	claim  string
	dedupe receipts.Dedupe
	key    keyKind
	flags  Flags
}

// keyKind groups the key choices by how they shape the search.
type keyKind uint8

const (
	keySame keyKind = iota // one value for every worker of the race: event, job, order
	keyRun                 // each run its own: run
	keyTry                 // the job and the attempt the run claimed with: attempt
)

// keyKindNames are the key kinds as the table writes them.
var keyKindNames = [...]string{keySame: "same", keyRun: "run", keyTry: "attempt"}

// flagNames are the worker flags as the table writes them, in order.
var flagNames = [...]string{"heartbeat", "fence", "ledger", "separate-key"}

// statesKey is the row of the table for a race of claim with the service
// v and the worker flags: with the ledger or without the service's key
// steps, the service makes no difference.
func (v Service) statesKey(claim queue.Claim, flags Flags) statesKey {
	if !v.active() || flags.Ledger {
		return statesKey{claim.String(), receipts.DedupeOff, keySame, flags}
	}
	k := keySame
	switch v.Key {
	case receipts.KeyRun:
		k = keyRun
	case receipts.KeyAttempt:
		k = keyTry
	}
	return statesKey{claim.String(), v.Dedupe, k, flags}
}

// flagSets is every combination of the worker flags (a separate key only
// with the ledger), in the table's order.
func flagSets() []Flags {
	var out []Flags
	for _, l := range []int{0, 1, 2} {
		for _, f := range []bool{false, true} {
			for _, h := range []bool{false, true} {
				out = append(out, Flags{Heartbeat: h, Fence: f, Ledger: l > 0, SeparateKey: l > 1})
			}
		}
	}
	return out
}

// services is no service, and every dedupe mode with every key, in the
// table's order.
func services() []Service {
	out := []Service{{}}
	for _, d := range receipts.Dedupes() {
		for _, k := range receipts.Keys() {
			if d != receipts.DedupeOff && k != receipts.KeyNone {
				out = append(out, Service{d, k})
			}
		}
	}
	return out
}

// tableRace is a row of a claim's table with a race that explores it.
type tableRace struct {
	key   statesKey
	svc   Service
	flags Flags
}

// tableRaces lists the rows of claim's table, in its order: every set of
// worker flags, and for each every service that makes a row of its own.
func tableRaces(claim queue.Claim) []tableRace {
	var out []tableRace
	seen := map[statesKey]bool{}
	for _, flags := range flagSets() {
		for _, svc := range services() {
			k := svc.statesKey(claim, flags)
			if !seen[k] {
				seen[k] = true
				out = append(out, tableRace{k, svc, flags})
			}
		}
	}
	return out
}

// statesHead is the comment at the top of the table's file.
const statesHead = `# The states race --all explores, for 2 to 8 workers: one line per claim,
# service and worker flags. Written by go generate ./runtime/explore; the
# package doc of runtime/explore says how to read it.
`

// UpdateStates returns the states table's file, file, with the rows of
// claims explored afresh, and the rows of every claim file lacks; the
// other claims' lines stay as they are. The claims go in the order of
// their list, each a block of lines, with a blank line between blocks.
// procs races are explored at once. This is what go generate runs; it
// takes a minute or two for a claim whose races have many states.
func UpdateStates(file []byte, claims []queue.Claim, procs int) ([]byte, error) {
	old := map[string][]string{}
	for _, line := range strings.Split(string(file), "\n") {
		if line != "" && line[0] != '#' {
			claim, _, _ := strings.Cut(line, " ")
			old[claim] = append(old[claim], line)
		}
	}
	var b strings.Builder
	b.WriteString(statesHead)
	for _, c := range queue.Claims() {
		lines, ok := old[c.String()]
		if !ok || slices.Contains(claims, c) {
			var err error
			if lines, err = exploreClaim(c, procs); err != nil {
				return nil, fmt.Errorf("%s: %v", c, err)
			}
		}
		b.WriteString("\n" + strings.Join(lines, "\n") + "\n")
	}
	return []byte(b.String()), nil
}

// exploreClaim explores every race of claim's table, procs at a time,
// and returns its lines.
func exploreClaim(claim queue.Claim, procs int) ([]string, error) {
	races := tableRaces(claim)
	lines := make([]string, len(races))
	errs := make([]error, len(races))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(procs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var row statesRow
				row, errs[i] = exploreRow(claim, races[i].svc, races[i].flags, MaxWorkers, row)
				lines[i] = formatRow(races[i].key, row)
			}
		}()
	}
	for i := range races {
		next <- i
	}
	close(next)
	wg.Wait()
	return lines, errors.Join(errs...)
}

// exploreRow fills in row up to workers workers, exploring each count it
// lacks, one worker more at a time, until a count passes StatesTabled.
func exploreRow(claim queue.Claim, svc Service, flags Flags, workers int, row statesRow) (statesRow, error) {
	for w := MinWorkers; w <= workers; w++ {
		switch {
		case row[w-MinWorkers] != 0:
		case w > MinWorkers && row[w-MinWorkers-1] > StatesTabled:
			row[w-MinWorkers] = ManyStates
		default:
			r, err := ExploreRace(claim, w, svc, flags)
			if err != nil {
				return row, err
			}
			row[w-MinWorkers] = r.States
		}
	}
	return row, nil
}

// formatRow is one line of a table file.
func formatRow(k statesKey, row statesRow) string {
	var flags []string
	for i, on := range []bool{k.flags.Heartbeat, k.flags.Fence, k.flags.Ledger, k.flags.SeparateKey} {
		if on {
			flags = append(flags, flagNames[i])
		}
	}
	f := strings.Join(flags, ",")
	if f == "" {
		f = "-"
	}
	words := []string{k.claim, k.dedupe.String(), keyKindNames[k.key], f}
	for _, n := range row {
		if n == ManyStates {
			words = append(words, "many")
		} else {
			words = append(words, strconv.Itoa(n))
		}
	}
	return strings.Join(words, " ")
}

// parseStates reads the table's file into rows, and returns the number
// of the first line it cannot read, or 0. A line of a claim that is not
// in the list is passed over. TestStatesTable holds every line to the
// generator's form (formatRow).
func parseStates(data string, rows map[statesKey]statesRow) int {
	for i, line := range strings.Split(data, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		k, row, ok := parseRow(line)
		if !ok {
			return i + 1
		}
		if _, known := queue.ParseClaim(k.claim); known {
			rows[k] = row
		}
	}
	return 0
}

// parseRow reads one line of the table: the claim, the dedupe mode, the
// key kind, the flags, and a count per number of workers.
func parseRow(line string) (statesKey, statesRow, bool) {
	var row statesRow
	w := strings.Split(line, " ")
	if len(w) != 4+len(row) {
		return statesKey{}, row, false
	}
	d, err := receipts.ParseDedupe(w[1])
	kind := slices.Index(keyKindNames[:], w[2])
	if err != nil || kind < 0 {
		return statesKey{}, row, false
	}
	k := statesKey{claim: w[0], dedupe: d, key: keyKind(kind)}
	for _, f := range strings.Split(w[3], ",") {
		switch f {
		case "-":
		case "heartbeat":
			k.flags.Heartbeat = true
		case "fence":
			k.flags.Fence = true
		case "ledger":
			k.flags.Ledger = true
		case "separate-key":
			k.flags.SeparateKey = true
		default:
			return statesKey{}, row, false
		}
	}
	for i, c := range w[4:] {
		n, err := strconv.Atoi(c)
		if c == "many" {
			n, err = ManyStates, nil
		}
		if err != nil || n <= 0 {
			return statesKey{}, row, false
		}
		row[i] = n
	}
	return k, row, true
}

// statesTable is the table's rows, read once.
var statesTable = sync.OnceValue(func() map[statesKey]statesRow {
	rows := map[statesKey]statesRow{}
	if bad := parseStates(statesText, rows); bad != 0 {
		panic(fmt.Sprintf("runtime/explore/states.txt, line %d: not a row of the states table", bad))
	}
	return rows
})

// States returns how many states ExploreRace(claim, workers, svc, flags)
// explores, without exploring when the table has the claim's row: what a
// caller can budget before running anything. A claim the table does not
// have yet is measured once, by exploring, and remembered. It is
// ManyStates for a search known to pass StatesTabled, and 0 for a race
// ExploreRace refuses.
func States(claim queue.Claim, workers int, svc Service, flags Flags) int {
	if workers < MinWorkers || workers > MaxWorkers || !svc.Dedupe.Valid() || !svc.Key.Valid() || !claim.Valid() {
		return 0
	}
	k := svc.statesKey(claim, flags)
	if row, ok := statesTable()[k]; ok {
		return row[workers-MinWorkers]
	}
	return measured(k, claim, workers, svc, flags)
}

var (
	measuredMu sync.Mutex
	measuredOf = map[statesKey]statesRow{}
)

// measured is States for a row the table lacks: it explores as the
// generator does, up to workers, and remembers the row so far.
func measured(k statesKey, claim queue.Claim, workers int, svc Service, flags Flags) int {
	measuredMu.Lock()
	defer measuredMu.Unlock()
	row, err := exploreRow(claim, svc, flags, workers, measuredOf[k])
	if err != nil {
		return 0
	}
	measuredOf[k] = row
	return row[workers-MinWorkers]
}
