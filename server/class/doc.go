// Package class collects a class's predictions: twice serve --class lets
// every phone in the room send its prediction for a block, and the
// teacher's presenter view read how the class voted, round by round.
//
// A [Service] owns the votes. Each block of a lesson page is named by the
// page's path and the block's id (/lessons/claim-race/#block-1) and has a
// scale, the choices a prediction may take, which the server that renders
// the lessons gives (Config.Blocks). A block's state is its round (1, then
// 2 once the teacher starts the second vote), whether the teacher has shown
// the current round's histogram, and whether the run is revealed, which
// closes the voting. A voter is a random id a phone keeps; its vote in a
// round replaces its earlier one there.
//
// Every change is written to a SQLite file (github.com/ncruces/go-sqlite3)
// before it is answered, so a server restarted mid-class shows the same
// tallies. One goroutine writes: votes that arrive together are committed
// in one transaction (one sync of the file for all of them), and each is
// answered once its transaction is on disk. Reads come from memory.
//
// The HTTP interface (docs/MANUAL.md, "A class's predictions") is bounded
// everywhere: a small body, a strict JSON shape, only known blocks and
// choices on their scale, a rate per voter and a (larger) rate per address,
// at most so many voters a round and votes in all. The teacher's requests
// carry the teacher key, a random secret printed on the server's terminal,
// as Authorization: Bearer KEY. Rates are measured on Config.Now, which
// tests replace with a fake clock.
package class
