// Command perfreport prints the table of docs/PERFORMANCE.md from the raw
// output that docs/perf/run.sh leaves in a folder:
//
//	go run ./internal/perf/perfreport DIR
package main

import (
	"fmt"
	"os"

	"github.com/twice-lab/twice/internal/perf"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: perfreport DIR")
		os.Exit(2)
	}
	if err := perf.Report(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "perfreport:", err)
		os.Exit(1)
	}
}
