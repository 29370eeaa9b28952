// Package codesize holds no code. Its test measures the module's own Go
// source, so that a reader can take in each piece: every package under
// 3,000 lines of non-test Go, and no function over 80 lines outside
// tests. Files the Go convention marks generated, and third_party, are
// not counted. The browser's JavaScript has the same bound on functions
// from ESLint (site/eslint.config.mjs, run by .ci/run).
package codesize
