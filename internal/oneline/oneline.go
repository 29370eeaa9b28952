// Package oneline rewrites a Go source file so that each top-level
// declaration is one line and every declaration reports line 1 of the
// same file.
//
// The browser build compiles every Go file it links (the standard
// library's and twice's) through a go build overlay made with [File]
// (wasmbuild.BuildRuntime). A Go binary carries a table that maps each
// instruction back to its file and line, for stack traces; with every
// statement at line 1 the table says the same thing for a whole function,
// and almost nothing is left of it: 64 kB less brotli for the browser's
// module (docs/PERFORMANCE.md). The code the compiler emits is the same;
// only a stack trace in the browser names file:1 instead of a line, and
// the native and wasip1 builds keep the files as they are.
//
// The rewrite works on tokens (go/scanner): it keeps every token in order,
// writes the semicolons Go would have inserted at line ends, and drops
// comments except the file's "Code generated" line and //go: directives,
// which stay on lines of their own before their declaration. A //line
// directive before each declaration sets its position. The result parses
// to the same declarations and statements as the input.
package oneline

import (
	"bytes"
	"errors"
	"go/scanner"
	"go/token"
	"strings"
)

// File returns src rewritten, each of its declarations on a line of its
// own positioned at name:1 by a //line directive. name is the file name
// the positions report (a base name such as "sqlite3.go").
func File(name string, src []byte) ([]byte, error) {
	f := token.NewFileSet().AddFile(name, -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(f, src, errs.Add, scanner.ScanComments)
	out := bytes.NewBuffer(make([]byte, 0, len(src)))
	directive := "//line " + name + ":1\n"
	depth := 0
	lineStart := true
	prev := token.ILLEGAL
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.COMMENT:
			// Only what the tools read survives, each on a line of its
			// own: the generated-code marker and the //go: directives
			// (nosplit, embed) before the declaration they belong to.
			if depth == 0 && (strings.HasPrefix(lit, "//go:") || strings.HasPrefix(lit, "// Code generated")) {
				if !lineStart {
					out.WriteByte('\n')
				}
				out.WriteString(lit + "\n")
				if strings.HasPrefix(lit, "//go:build") {
					out.WriteByte('\n') // a build constraint ends with a blank line
				}
				lineStart = true
			}
			continue
		case token.SEMICOLON:
			// Explicit or inserted at a line end: between declarations a
			// new line, inside one a semicolon.
			if depth == 0 {
				out.WriteByte('\n')
				lineStart = true
			} else {
				out.WriteByte(';')
			}
			prev = tok
			continue
		case token.LBRACE, token.LPAREN, token.LBRACK:
			depth++
		case token.RBRACE, token.RPAREN, token.RBRACK:
			depth--
		}
		if lineStart && depth == 0 && tok != token.PACKAGE {
			out.WriteString(directive)
		}
		if !lineStart && prev != token.SEMICOLON {
			out.WriteByte(' ')
		}
		if lit == "" {
			lit = tok.String()
		}
		out.WriteString(lit)
		lineStart = false
		prev = tok
	}
	if errs.Len() > 0 {
		return nil, errs.Err()
	}
	if depth != 0 {
		return nil, errors.New(name + ": unbalanced brackets")
	}
	if !lineStart {
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}
