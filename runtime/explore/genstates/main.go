// Command genstates writes the states table of package explore,
// runtime/explore/states.txt, by exploring the races it counts (see that
// package's doc, "The states table"). go generate ./runtime/explore runs
// it with no arguments: it adds the rows of every claim the file lacks
// and leaves every other line as it is. Named claims are explored again
// whether the file has them or not; -all explores every claim:
//
//	go generate ./runtime/explore              # a new claim's rows
//	go run ./runtime/explore/genstates lock    # lock's, after its steps changed
//	go run ./runtime/explore/genstates -all    # every claim's (about ten minutes)
//
// It runs from the module's root or from runtime/explore, and explores
// as many races at once as Go has processors.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/twice-lab/twice/runtime/explore"
	"github.com/twice-lab/twice/runtime/queue"
)

func main() {
	all := flag.Bool("all", false, "explore every claim")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: genstates [-all] [CLAIM...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*all, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "genstates:", err)
		os.Exit(1)
	}
}

func run(all bool, names []string) error {
	name := "states.txt"
	if _, err := os.Stat(name); err != nil {
		name = filepath.Join("runtime", "explore", "states.txt")
	}
	file, err := os.ReadFile(name)
	if err != nil {
		return errors.New("run it from the module's root or from runtime/explore")
	}
	var claims []queue.Claim
	for _, n := range names {
		c, ok := queue.ParseClaim(n)
		if !ok {
			return fmt.Errorf("%q is no claim: want %s", n, queue.ClaimNames(", "))
		}
		claims = append(claims, c)
	}
	if all {
		claims = queue.Claims()
	}
	out, err := explore.UpdateStates(file, claims, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	return os.WriteFile(name, out, 0o644)
}
