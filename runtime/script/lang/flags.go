package lang

import (
	"strings"
	"unicode/utf8"

	"github.com/twice-lab/twice/runtime/queue"
	"github.com/twice-lab/twice/runtime/receipts"
	"github.com/twice-lab/twice/runtime/sim"
)

// flagSpec is one flag of a command, one entry of its flag table: the
// parser reads the flag with it, the unknown-flag error lists it, and the
// synopsis that --help, docs/COMMANDS.md and the usage errors print shows
// it. A command's flags are listed in the order all of these give them.
type flagSpec struct {
	name string // without the dashes: "job"
	// arg is what the flag's value is, as the synopsis shows it ("N",
	// "MS", "read|lock|atomic"); "" for a flag that takes no value.
	arg string
	// need marks a flag the command cannot do without: the synopsis
	// shows it without brackets, and leaving it out is an error.
	need bool
	// inArgs marks a flag the synopsis shows among the command's words
	// (race's "[N | --all]") rather than after them.
	inArgs bool
	// set reads the flag into c: its value v, or, for a flag that takes
	// none, the mere fact that it was given (v is then empty).
	set func(c *Command, v token) *Error
}

// synopsis is the command as --help prints it: its name, its words, its
// flags.
func (s commandSpec) synopsis() string {
	var b strings.Builder
	b.WriteString(s.name)
	if s.args != "" {
		b.WriteString(" " + s.args)
	}
	for _, f := range s.flags {
		if f.inArgs {
			continue
		}
		w := "--" + f.name
		if f.arg != "" {
			w += " " + f.arg
		}
		if !f.need {
			w = "[" + w + "]"
		}
		b.WriteString(" " + w)
	}
	return b.String()
}

// flagList is what the unknown-flag error offers: "--event, --times".
func (s commandSpec) flagList() string {
	names := make([]string, len(s.flags))
	for i, f := range s.flags {
		names[i] = "--" + f.name
	}
	return strings.Join(names, ", ")
}

// flag returns the entry of the flag named name.
func (s commandSpec) flag(name string) (flagSpec, bool) {
	for _, f := range s.flags {
		if f.name == name {
			return f, true
		}
	}
	return flagSpec{}, false
}

// parse reads a command's arguments by its table entry: every flag by its
// flagSpec, each at most once, and then the words that are not flags, and
// whatever no one flag can check, by the command's finish.
func (s commandSpec) parse(c *Command, name token, args []token) *Error {
	if s.raw != nil {
		return s.raw(c, name, args)
	}
	if s.args == "" && len(s.flags) == 0 {
		if len(args) > 0 {
			return usageErr(args[0].pos, "%s takes no arguments", name.text)
		}
		return nil
	}
	if s.start != nil {
		s.start(c)
	}
	var words []token
	given := flagsGiven{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a.text, "-") {
			if s.args == "" {
				return usageErr(a.pos, "unexpected argument %q (%s takes only flags)", a.text, s.name)
			}
			words = append(words, a)
			continue
		}
		f, err := cutFlag(a, given)
		if err != nil {
			return err
		}
		spec, ok := s.flag(f.name)
		if !ok {
			return usageErr(a.pos, "unknown flag %q (want %s)", a.text, s.flagList())
		}
		var v token
		if spec.arg == "" {
			err = f.noValue()
		} else {
			v, err = f.value(args, &i)
		}
		if err == nil {
			err = spec.set(c, v)
		}
		if err == nil && spec.arg != "" {
			c.values = append(c.values, flagValue{f.name, v.off, v.text})
		}
		if err != nil {
			return f.named(v, err)
		}
	}
	for _, f := range s.flags {
		if f.need && given[f.name].name == "" {
			return usageErr(name.pos, "%s needs --%s %s", s.name, f.name, f.arg)
		}
	}
	if s.finish != nil {
		return s.finish(s, c, name, words, given)
	}
	return nil
}

// flagsGiven holds the flags a command was given, by name.
type flagsGiven map[string]flagArg

// first returns the first given, in the script, of the flags named.
func (g flagsGiven) first(names ...string) (flagArg, bool) {
	var first flagArg
	found := false
	for _, n := range names {
		f, ok := g[n]
		if ok && (!found || f.tok.pos.Line < first.tok.pos.Line || f.tok.pos.Line == first.tok.pos.Line && f.tok.pos.Col < first.tok.pos.Col) {
			first, found = f, true
		}
	}
	return first, found
}

// flagArg is one --name or --name=value argument.
type flagArg struct {
	tok    token
	name   string
	val    string
	hasVal bool
}

// cutFlag splits a flag argument and refuses one given twice, or written
// with other than two dashes.
func cutFlag(t token, given flagsGiven) (flagArg, *Error) {
	name, val, hasVal := strings.Cut(strings.TrimLeft(t.text, "-"), "=")
	if name == "" {
		return flagArg{}, usageErr(t.pos, "%q is not a flag: flags are --name or --name=value", t.text)
	}
	if dashes := len(t.text) - len(strings.TrimLeft(t.text, "-")); dashes != 2 && (name[0] >= 'a' && name[0] <= 'z') {
		return flagArg{}, usageErr(t.pos, "flag %q has the wrong number of dashes: write --%s", t.text, name)
	}
	if _, twice := given[name]; twice {
		return flagArg{}, usageErr(t.pos, "flag --%s given twice", name)
	}
	f := flagArg{tok: t, name: name, val: val, hasVal: hasVal}
	given[name] = f
	return f, nil
}

// named puts the flag's name before an error about its value v: "--job:
// want a whole number ...".
func (f flagArg) named(v token, err *Error) *Error {
	if err != nil && err.Line == v.pos.Line && err.Col == v.pos.Col && !strings.HasPrefix(err.Msg, "--") {
		err.Msg = "--" + f.name + ": " + err.Msg
	}
	return err
}

// value returns the flag's value: after '=', or the next argument.
func (f flagArg) value(args []token, i *int) (token, *Error) {
	if f.hasVal {
		col := f.tok.pos.Col + utf8.RuneCountInString(f.tok.text) - utf8.RuneCountInString(f.val)
		return token{tWord, f.val, Pos{f.tok.pos.Line, col}, f.tok.off + len(f.tok.text) - len(f.val)}, nil
	}
	if *i+1 >= len(args) {
		return token{}, usageErr(f.tok.pos, "flag --%s needs a value", f.name)
	}
	*i++
	return args[*i], nil
}

// noValue refuses a value for a flag that takes none.
func (f flagArg) noValue() *Error {
	if f.hasVal {
		return usageErr(f.tok.pos, "flag --%s takes no value", f.name)
	}
	return nil
}

// msFlag is a flag whose value is a whole number of milliseconds from lo,
// read into the field at(c) points to.
func msFlag(name string, lo int64, at func(c *Command) *sim.Time) flagSpec {
	return flagSpec{name: name, arg: "MS", set: func(c *Command, v token) (err *Error) {
		*at(c), err = parseMillis(v, "--"+name, lo)
		return err
	}}
}

// boolFlag is a flag that takes no value and sets the field at(c) points
// to.
func boolFlag(name string, at func(c *Command) *bool) flagSpec {
	return flagSpec{name: name, set: func(c *Command, _ token) *Error {
		*at(c) = true
		return nil
	}}
}

// keyFlag is --key, one of receipts.Keys; arg is how the synopsis shows
// it.
func keyFlag(arg string, at func(c *Command) *receipts.Key) flagSpec {
	return flagSpec{name: "key", arg: arg, set: func(c *Command, v token) (err *Error) {
		*at(c), err = parseKey(v)
		return err
	}}
}

// claimFlag is --claim, one of queue.Claims.
func claimFlag(at func(c *Command) *queue.Claim) flagSpec {
	return flagSpec{name: "claim", arg: claimList, set: func(c *Command, v token) (err *Error) {
		*at(c), err = parseClaim(v)
		c.claimAt, c.claimEnd = v.off, v.off+len(v.text)
		return err
	}}
}

// txnFlag is --txn, one of queue.Txns.
func txnFlag(at func(c *Command) *queue.Txn) flagSpec {
	return flagSpec{name: "txn", arg: queue.TxnNames("|"), set: func(c *Command, v token) (err *Error) {
		*at(c), err = parseTxn(v)
		return err
	}}
}

// effectFlag is --effect, receipt or ledger.
func effectFlag(at func(c *Command) *string) flagSpec {
	return flagSpec{name: "effect", arg: effectList, set: func(c *Command, v token) *Error {
		*at(c) = v.text
		return checkEffect(v)
	}}
}

// keyTxnFlag is --key-txn, same or separate.
func keyTxnFlag(at func(c *Command) *string) flagSpec {
	return flagSpec{name: "key-txn", arg: keyTxnList, set: func(c *Command, v token) *Error {
		*at(c) = v.text
		return checkKeyTxn(v)
	}}
}
