#!/usr/bin/env bash
# Regenerates ../sqlite3.go, ../sqlite3.dat and ../libc.go, the Go
# translation of the SQLite that the CLI, the server and the wasip1 build
# link, and ../../sqlitewasm/sqlite3.wasm, the same SQLite compiled as a
# WebAssembly module of its own for the browser build, from pinned inputs,
# and records their sha256 in SHA256SUMS. Run it from anywhere:
#
#	third_party/sqlite/build/build.sh            # both
#	third_party/sqlite/build/build.sh --browser  # the browser's module only
#
# It needs clang-19, lld-19 and llvm-19 (Debian packages), node, npm and Go; it
# fetches the rest into $TOOLS (default: .tools-sqlite at the repository's
# root, git-ignored): the amalgamation from the better-sqlite3 npm package,
# binaryen's wasm-opt from npm, wasm2go and libc-gen from the Go module
# proxy. Every input is checked against the versions and hashes below, so
# two runs give the same bytes; `git diff --exit-code third_party/sqlite`
# afterwards shows whether they did.
set -euo pipefail

cd -P -- "$(dirname -- "$0")"
BUILD=$PWD
OUT=$(cd .. && pwd)
ROOT=$(cd ../../.. && pwd)
TOOLS=${TOOLS:-$ROOT/.tools-sqlite}

# Pinned inputs.
SQLITE_VERSION=3.54.1
BETTER_SQLITE3_VERSION=13.2.0 # vendors the SQLite 3.54.1 amalgamation
BETTER_SQLITE3_SHA256=40487589df3496f2ee0079d22b73c63fccebe7db0e8ee9a2c42421861e321e0b
SQLITE3_C_SHA256=75a4760a7b9727a4c4c877aec92eacf39e52a8f2921ce00bd33be6d3a8e8e254
SQLITE3_H_SHA256=d6c84557261893439b341d2e6c35187ae3ea24fbfd843ad94616f72d89242b8c
CLANG_VERSION="Debian clang version 19.1.7 (3~deb12u1)"
BINARYEN_VERSION=132.0.0
WASM2GO_VERSION=v0.4.20 # the version the driver's module names

# build.sh --measure [KEEP_X...]: compile and link only, once as
# configured and once per switch named with just that switch defined, and
# print the bytes of each linked module and what it imports beyond the
# driver's callbacks. KEEP_A,KEEP_B defines both at once. The committed
# files are left alone.
MEASURE=()
BROWSER_ONLY=
if [[ ${1:-} == --measure ]]; then
	shift
	MEASURE=("" "$@")
elif [[ ${1:-} == --browser ]]; then
	BROWSER_ONLY=1
fi

CLANG=${CLANG:-clang-19}
NICE=(nice -n 15)

die() { echo "build.sh: $*" >&2; exit 1; }
check_sha256() { # file want
	local got
	got=$(sha256sum "$1" | cut -d' ' -f1)
	[[ $got == "$2" ]] || die "$1: sha256 $got, want $2"
}

command -v "$CLANG" >/dev/null || die "no $CLANG: apt-get install clang-19 lld-19"
command -v wasm-ld-19 >/dev/null || die "no wasm-ld-19: apt-get install lld-19"
command -v llvm-nm-19 >/dev/null || die "no llvm-nm-19: apt-get install llvm-19"
got=$("$CLANG" --version | head -n1)
[[ $got == "$CLANG_VERSION" ]] || die "$CLANG is '$got', want '$CLANG_VERSION'"

mkdir -p "$TOOLS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM

# The amalgamation, from the npm package's tarball.
TGZ="$TOOLS/better-sqlite3-$BETTER_SQLITE3_VERSION.tgz"
if [[ ! -f $TGZ ]]; then
	(cd "$TOOLS" && npm pack --silent "better-sqlite3@$BETTER_SQLITE3_VERSION" >/dev/null)
fi
check_sha256 "$TGZ" "$BETTER_SQLITE3_SHA256"
tar -xzf "$TGZ" -C "$WORK" --strip-components=3 \
	package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h package/deps/sqlite3/sqlite3ext.h
check_sha256 "$WORK/sqlite3.c" "$SQLITE3_C_SHA256"
check_sha256 "$WORK/sqlite3.h" "$SQLITE3_H_SHA256"
grep -q "define SQLITE_VERSION  *\"$SQLITE_VERSION\"" "$WORK/sqlite3.h" || die "sqlite3.h is not $SQLITE_VERSION"

# binaryen's wasm-opt, the npm build (a JS program run by node).
WASM_OPT="$TOOLS/node_modules/.bin/wasm-opt"
if [[ ! -x $WASM_OPT ]] || [[ $("$WASM_OPT" --version) != *"version ${BINARYEN_VERSION%%.*}"* ]]; then
	npm install --silent --no-save --prefix "$TOOLS" "binaryen@$BINARYEN_VERSION" >/dev/null
fi
[[ $("$WASM_OPT" --version) == *"version ${BINARYEN_VERSION%%.*}"* ]] || die "wasm-opt is not binaryen $BINARYEN_VERSION"

# wasm2go and libc-gen.
GOBIN="$TOOLS/bin" "${NICE[@]}" go install \
	"github.com/ncruces/wasm2go@$WASM2GO_VERSION" \
	"github.com/ncruces/wasm2go/libc-gen@$WASM2GO_VERSION"
WASM2GO="$TOOLS/bin/wasm2go"
LIBC_GEN="$TOOLS/bin/libc-gen"

# The driver's bindings and patches, then twice's options and stubs. The
# browser's module gets a copy of the amalgamation of its own, before the
# patches (see build_browser).
cp "$BUILD"/*.c "$BUILD"/*.h "$BUILD"/*.patch "$BUILD"/exports.txt "$BUILD"/browser_exports.txt "$WORK"/
cd "$WORK"
cp sqlite3.c sqlite3.orig.c
cat ./*.patch | patch -s -p0 --no-backup-if-mismatch
"$LIBC_GEN" -c-out libc

CFLAGS=(--target=wasm32 -c
	-ffreestanding -nostdlib -std=c23 -g0 -Oz
	-Wall -Wextra -Wno-unused-parameter -Wno-unused-function
	-I. -Ilibc
	-mmutable-globals -mmultivalue
	-mnontrapping-fptoint -msign-ext
	-mreference-types -mbulk-memory
	-mextended-const -mtail-call
	-D_HAVE_SQLITE_CONFIG_H
	-DSQLITE_CUSTOM_INCLUDE=sqlite_opt.h)
WASM_FEATURES=(--enable-mutable-globals --enable-multivalue
	--enable-nontrapping-float-to-int --enable-sign-ext
	--enable-reference-types --enable-bulk-memory
	--enable-extended-const --enable-tail-call)

# Compiled and linked in two steps: the clang driver would otherwise run
# any wasm-opt it finds on PATH at link time, silently, and the output
# would depend on which one that is.
compile_link() { # out.wasm [extra cflags...]
	local out=$1
	shift
	"${NICE[@]}" "$CLANG" "${CFLAGS[@]}" -o "$out.o" main.c "$@"
	wasm-ld-19 -m wasm32 --entry _initialize \
		--stack-first --export-table --import-memory --import-undefined \
		$(awk '{print "--export="$0}' exports.txt) \
		"$out.o" -o "$out"
}

# build_browser compiles browser.c, the browser's SQLite module, in a
# folder of its own: the same amalgamation, options and compiler flags,
# and the patches that change what SQLite does (clearbinds, noinline,
# nodatetime); not the two that hand the VFS registry and the busy
# handler to the driver's Go code (vfs_find, busy_timeout), since this
# module has its VFS in C and no busy handler. It imports nothing (the
# link fails on any undefined function) and exports what
# browser_exports.txt lists. binaryen then optimizes it for size and
# drops its names.
BROWSER_PATCHES=(clearbinds.patch noinline.patch nodatetime.patch)
BROWSER_OUT=$ROOT/third_party/sqlitewasm
build_browser() {
	mkdir -p browser
	cp ./*.c ./*.h browser/
	cp sqlite3.orig.c browser/sqlite3.c
	(
		cd browser
		cat "${BROWSER_PATCHES[@]/#/../}" | patch -s -p0 --no-backup-if-mismatch
		"${NICE[@]}" "$CLANG" "${CFLAGS[@]}" -I../libc -o sqlite3.o browser.c
		wasm-ld-19 -m wasm32 --no-entry --stack-first \
			--export=_initialize $(grep -v '^memory$' ../browser_exports.txt | awk '{print "--export="$0}') \
			sqlite3.o -o sqlite3.wasm
		"${NICE[@]}" "$WASM_OPT" sqlite3.wasm -o sqlite3.opt.wasm \
			-Oz --low-memory-unused --zero-filled-memory "${WASM_FEATURES[@]}" \
			--strip-debug --strip-dwarf --strip-producers
	)
	mkdir -p "$BROWSER_OUT"
	cp browser/sqlite3.opt.wasm "$BROWSER_OUT/sqlite3.wasm"
}

if ((${#MEASURE[@]})); then
	for keep in "${MEASURE[@]}"; do
		flags=()
		for k in ${keep//,/ }; do flags+=("-D$k"); done
		compile_link m.wasm "${flags[@]}"
		printf '%-28s %9d bytes; imports beyond go_*: %s\n' "${keep:-as configured}" \
			"$(stat -c %s m.wasm)" "$(llvm-nm-19 -u m.wasm | awk '$2 !~ /^go_/ {printf "%s ", $2}')"
	done
	exit 0
fi

build_browser
if [[ -n $BROWSER_ONLY ]]; then
	cd "$OUT"
	sed -i '/sqlitewasm\/sqlite3.wasm$/d' "$BUILD/SHA256SUMS"
	sha256sum ../sqlitewasm/sqlite3.wasm >>"$BUILD/SHA256SUMS"
	ls -l ../sqlitewasm/sqlite3.wasm
	exit 0
fi

compile_link sqlite3.wasm
# (grep reads all of llvm-nm's output: with -q it could stop early, and
# pipefail would report llvm-nm's broken pipe as a missing function.)
llvm-nm-19 sqlite3.wasm | grep ' sqlite3VdbeExec$' >/dev/null || die "clang inlined sqlite3VdbeExec"

# No --strip: in binaryen 132 it drops the name section, and wasm2go names
# the Go functions after it. sqlite3VdbeExec, SQLite's interpreter loop,
# stays a function of its own here as in clang (noinline.patch): it has one
# caller, and the browser build's tests measure it by name. Passes run in
# the order given, so --no-inline comes first.
"${NICE[@]}" "$WASM_OPT" -g sqlite3.wasm -o sqlite3.opt.wasm \
	--no-inline=sqlite3VdbeExec \
	--gufa-optimizing --generate-global-effects \
	--low-memory-unused --zero-filled-memory --converge -O4 \
	"${WASM_FEATURES[@]}" \
	--strip-dwarf --strip-producers

mkdir -p gen
"$LIBC_GEN" -pkg sqlite3_wasm -wasm sqlite3.opt.wasm -o gen/libc.go
cp sqlite3.opt.wasm gen/sqlite3.wasm
(cd gen && "${NICE[@]}" "$WASM2GO" -pkg sqlite3_wasm -embed -unsafe -provided libc.go -o sqlite3.go sqlite3.wasm)
gofmt -w gen/sqlite3.go gen/libc.go
cp gen/sqlite3.go gen/sqlite3.dat gen/libc.go "$OUT"/

cd "$OUT"
sha256sum sqlite3.go sqlite3.dat libc.go ../sqlitewasm/sqlite3.wasm >"$BUILD/SHA256SUMS"
ls -l sqlite3.go sqlite3.dat libc.go ../sqlitewasm/sqlite3.wasm
