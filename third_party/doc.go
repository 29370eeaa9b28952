// Package thirdparty holds no code of its own. Its directory keeps copies
// of other projects' code that twice builds differently from upstream
// (third_party/sqlite: the driver's SQLite module, rebuilt with fewer
// features), and its tests check those copies: that the committed
// translation is the one the build script recorded, that it asks its host
// for nothing new, and that every statement twice runs, and the claims a
// reader might write, still work on it.
package thirdparty
