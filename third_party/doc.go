// Package thirdparty holds no code of its own. Its directory keeps copies
// of other projects' code that twice builds differently from upstream
// (third_party/sqlite: the driver's SQLite module, rebuilt with fewer
// features; third_party/sqlitewasm: the same SQLite compiled as the
// browser's WebAssembly module), and its tests check those copies: that
// the committed files are the ones the build script recorded, that the
// translation asks its host for nothing new and the browser's module for
// nothing at all, and that every statement twice runs, and the claims a
// reader might write, still work on them.
package thirdparty
