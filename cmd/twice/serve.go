package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/twice-lab/twice/server"
	"github.com/twice-lab/twice/server/class"
	"github.com/twice-lab/twice/server/wasmbuild"
)

const serveUsage = `usage: twice serve [--addr HOST:PORT] [--lessons DIR] [--notes on|off] [--wasm FILE] [--class [--class-db FILE]]

Serves the lessons and the playground. The WebAssembly runtime is built from
the source tree on start (about 40 s the first time, a second or two after)
unless --wasm (or $TWICE_WASM) names a prebuilt one. It prints the URL
once the index can be served, and renders the lessons in the background,
serving each as soon as it is done. With --lessons, pages are
rendered again whenever a lesson file in DIR changes: edit and reload.
With an --addr other machines can reach (0.0.0.0:8080 for a classroom),
it prints every network URL it listens on and a QR code of the first.
The teacher notes are served only to this machine (and, with --class, to
the browser that has the teacher key); --notes=off leaves them out.
With --class, every student's prediction is sent to the server and the
teacher's presenter view shows how the class voted: it prints a class code
for the students and a teacher key for the teacher's browser, and keeps the
votes in a SQLite file (--class-db, or the default it prints).
`

// cmdServe is `twice serve`.
func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", serveUsage, stderr)
	addr := fs.String("addr", server.DefaultAddr, "`HOST:PORT` to listen on")
	flags := addSiteFlags(fs, "serve")
	classOn := fs.Bool("class", false, "collect the class's predictions for the teacher's presenter view")
	classDB := fs.String("class-db", "", "keep the class's votes in this SQLite `FILE` (default "+class.DefaultDB()+")")
	if code, done := parseFlags(fs, args, false, stderr); done {
		return code
	}
	hide, code := flags.check("serve", stderr)
	if code != 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// A server runs for hours on machines with little memory (a
	// classroom's VM): its garbage collector works harder rather than let
	// the heap grow past ServeMemory, unless GOMEMLIMIT says otherwise.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(server.ServeMemory)
	}

	progress := prefixed{stdout}
	rt, err := wasmbuild.ObtainRuntime(ctx, *flags.wasm, progress)
	if err != nil {
		fmt.Fprintf(stderr, "twice serve: %v\n", err)
		return 1
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "twice serve: %v (choose another address with --addr)\n", err)
		return 1
	}
	room := ""
	if urls := server.LANURLs(l.Addr()); len(urls) > 0 {
		room = urls[0]
	}
	// The class's votes are looked up against the site as served: srv
	// is set before the server answers its first request.
	var srv *server.Server
	var cls *class.Service
	if *classOn {
		db := *classDB
		if db == "" {
			db = class.DefaultDB()
		}
		cls, err = class.Open(class.Config{DB: db, Blocks: func(b string) (class.Scale, bool) { return srv.BlockScale(b) }})
		if err != nil {
			l.Close()
			fmt.Fprintf(stderr, "twice serve: %v (choose another file with --class-db)\n", err)
			return 1
		}
		defer cls.Close()
	} else if *classDB != "" {
		l.Close()
		fmt.Fprintf(stderr, "twice serve: --class-db needs --class\n")
		return 2
	}
	var classHandler http.Handler
	if cls != nil {
		classHandler = cls
	}
	// The lessons render in the background: StartServer returns once the
	// index can be served, so the URL printed below answers at once, and
	// each lesson is served as soon as it has rendered.
	srv, err = server.StartServer(server.Options{
		LessonsDir: *flags.dir,
		Runtime:    rt,
		CacheDir:   wasmbuild.CacheDir(),
		Brotli:     server.BrotliLater,
		Live:       true,
		HideNotes:  hide,
		RoomURL:    room,
		Class:      classHandler,
		// The teacher notes go to this machine and, in a class, to the
		// browser that has the teacher key.
		Teacher: func(r *http.Request) bool { return server.FromLoopback(r) || (cls != nil && cls.IsTeacher(r)) },
	}, stderr)
	if err != nil {
		l.Close()
		fmt.Fprintf(stderr, "twice serve: %v\n", err)
		return 1
	}
	defer srv.Close()
	if !server.IsLoopback(*addr) {
		fmt.Fprintf(stderr, "twice serve: warning: listening on %s, which other machines on the network can reach; the default, %s, cannot\n", *addr, server.DefaultAddr)
		printRoom(stdout, l.Addr())
	}
	if cls != nil {
		printClass(stdout, cls, serveURL(l.Addr()))
	}
	fmt.Fprintf(stdout, "twice: serving the lessons at %s (Ctrl+C stops)\n", serveURL(l.Addr()))
	if err := server.Serve(ctx, l, srv); err != nil {
		fmt.Fprintf(stderr, "twice serve: %v\n", err)
		return 1
	}
	return 0
}

// printRoom prints the URLs other machines on the network can open, and
// a QR code of the first for phones to scan from the projected terminal.
func printRoom(w io.Writer, a net.Addr) {
	urls := server.LANURLs(a)
	if len(urls) == 0 {
		fmt.Fprintf(w, "twice: this machine has no network address other machines can reach (only loopback)\n")
		return
	}
	for _, u := range urls {
		fmt.Fprintf(w, "twice: on the network: %s\n", u)
	}
	code, err := server.QRText(urls[0])
	if err != nil {
		return
	}
	fmt.Fprintf(w, "twice: scan to open %s:\n%s", urls[0], code)
}

// printClass prints the class code for the students, the teacher key on
// a line of its own, the teacher's link (which carries the key in its
// fragment, never sent over the network) and the class file.
func printClass(w io.Writer, c *class.Service, url string) {
	fmt.Fprintf(w, "twice: class code for the students: %s\n", c.Code())
	fmt.Fprintf(w, "teacher key: %s\n", c.Key())
	fmt.Fprintf(w, "twice: the teacher's link (open it, then a lesson's presenter view): %s#teacher=%s\n", url, c.Key())
	fmt.Fprintf(w, "twice: the class's votes are kept in %s\n", c.DB())
}

// serveURL is the URL to print for a listener's address.
func serveURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// siteFlags are the flags twice serve and twice build share: the lessons
// folder, a prebuilt runtime and the teacher notes.
type siteFlags struct{ dir, wasm, notes *string }

// addSiteFlags defines the flags of siteFlags on fs, for the command verb.
func addSiteFlags(fs *flag.FlagSet, verb string) siteFlags {
	return siteFlags{
		dir:   fs.String("lessons", "", verb+" the lessons in `DIR` instead of the built-in ones"),
		wasm:  fs.String("wasm", "", "use this prebuilt twice.wasm `FILE` instead of building one"),
		notes: fs.String("notes", "on", "show the lessons' teacher notes, folded (on), or leave them out (off)"),
	}
}

// check says on stderr what is wrong with the flags and returns the exit
// code (0 when nothing is) and whether the notes are left out.
func (f siteFlags) check(verb string, stderr io.Writer) (hide bool, code int) {
	hide, ok := notesFlag(*f.notes, verb, stderr)
	if !ok {
		return false, 2
	}
	return hide, checkDir(*f.dir, verb, stderr)
}

// notesFlag reads --notes: whether to hide the teacher notes.
func notesFlag(v, cmd string, stderr io.Writer) (hide, ok bool) {
	switch v {
	case "on":
		return false, true
	case "off":
		return true, true
	}
	fmt.Fprintf(stderr, "twice %s: --notes %s: want on or off\n", cmd, v)
	return false, false
}

// checkDir reports a --lessons folder that does not exist as a usage error.
func checkDir(dir, cmd string, stderr io.Writer) int {
	if dir == "" {
		return 0
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "twice %s: --lessons %s: not a folder\n", cmd, dir)
		return 2
	}
	return 0
}

// prefixed writes progress lines with a "twice: " prefix.
type prefixed struct{ w io.Writer }

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, "twice: "); err != nil {
		return 0, err
	}
	return p.w.Write(b)
}
