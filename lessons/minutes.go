package lessons

import "strings"

// Reading and running speeds behind [Minutes]: a reader reads prose at
// about ReadWordsPerMinute words a minute, and spends about
// RunSecondsPerBlock on each block: pressing Run, reading what it prints,
// trying a change.
const (
	ReadWordsPerMinute = 200
	RunSecondsPerBlock = 90
)

// Minutes is about how long lesson l takes, in whole minutes (at least
// one): its words, those of its blocks' scripts left out, at
// ReadWordsPerMinute, and RunSecondsPerBlock for each block. It is worked
// out from the lesson itself, so that the index and the lesson page
// never show a time that the text has outgrown.
func Minutes(l Lesson) int {
	words := len(strings.Fields(string(l.Source)))
	for _, b := range l.Blocks {
		words -= len(strings.Fields(b.Script))
	}
	seconds := max(words, 0)*60/ReadWordsPerMinute + len(l.Blocks)*RunSecondsPerBlock
	return max(1, (seconds+30)/60)
}
