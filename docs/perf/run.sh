#!/usr/bin/env bash
# docs/perf/run.sh regenerates every figure of docs/PERFORMANCE.md in one
# run and prints the table:
#
#	bash docs/perf/run.sh [OUT]          # OUT defaults to a new temporary folder
#
# It leaves the raw output in OUT (benchmark text, sizes, wrk reports) and
# the table in OUT/report.md. Knobs, with their defaults:
#
#	COUNT=6              -count of each go benchmark
#	WRK_DURATION=30s     length of each wrk run
#	WRK_REPS=3           wrk runs per server and target, interleaved
#	WRK_CONNECTIONS=100
#	WRK_TIMEOUT=2s       wrk counts a slower response as an error (2s is its default)
#	PORT_TWICE=18080 PORT_NGINX=18081   loopback ports
#	BROWSER_COUNT=5      -count of each browser benchmark (one op each; a peer op is one visit each)
#	PEER_VERSION=3.54.1-build1   the exact npm version of @sqlite.org/sqlite-wasm, the peer
#	SKIP=                space-separated parts to skip: bench wazero sizes wrk browser peer
#	BEFORE=              a commit (or other git revision): its export is built in a
#	                     temporary worktree and the peer benchmarks, the heavy blocks
#	                     and the memory benchmark visit it too, in the same ops, so the
#	                     report shows before and after from one run
#
# Needs Go, gzip, brotli, wrk, nginx and Chromium (Debian packages
# brotli, wrk, nginx, chromium), and npm for the peer (Debian's npm).
# The peer, the official SQLite wasm, is installed from npm into
# OUT/npm at run time and copied beside docs/perf/peer's page into
# OUT/peer; nothing of it is kept in the repository. Everything listens on
# 127.0.0.1 only, and every process it starts is stopped when it exits.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

out=${1:-$(mktemp -d -t twice-perf-XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
chmod 755 "$out" # nginx's workers must read the export
COUNT=${COUNT:-6}
WRK_DURATION=${WRK_DURATION:-30s}
WRK_REPS=${WRK_REPS:-3}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-100}
WRK_TIMEOUT=${WRK_TIMEOUT:-2s}
PORT_TWICE=${PORT_TWICE:-18080}
PORT_NGINX=${PORT_NGINX:-18081}
BROWSER_COUNT=${BROWSER_COUNT:-5}
PEER_VERSION=${PEER_VERSION:-3.54.1-build1}
SKIP=${SKIP:-}
BEFORE=${BEFORE:-}

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)" >&2; }
skip() { [[ " $SKIP " == *" $1 "* ]]; }
need() {
	for c in "$@"; do
		command -v "$c" >/dev/null || { echo "run.sh: needs $c (apt-get install -y $c)" >&2; exit 1; }
	done
}

pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT

{
	echo "commit   $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (plus uncommitted changes)')"
	echo "date     $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "go       $(go version)"
	echo "cpu      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
	echo "count    $COUNT; wrk $WRK_REPS x $WRK_DURATION, $WRK_CONNECTIONS connections, timeout $WRK_TIMEOUT; browser $BROWSER_COUNT"
	echo "chromium $(chromium --version 2>/dev/null || echo none)"
	skip peer || echo "peer     @sqlite.org/sqlite-wasm@$PEER_VERSION (npm)"
	[ -z "$BEFORE" ] || echo "before   $(git rev-parse --short "$BEFORE^{commit}")"
} >"$out/env.txt"

if ! skip bench; then
	step "native: simulated races vs bare SQL (runtime/script/interp BenchmarkRace, BenchmarkRaceSQL)"
	go test ./runtime/script/interp -run '^$' -bench 'Race' -count "$COUNT" | tee "$out/native.txt" >&2
fi

if ! skip wazero; then
	step "CLI races natively and as wasip1 under wazero (internal/parity BenchmarkCLI*)"
	go test ./internal/parity -run '^$' -bench 'CLI' -benchtime 3x -count "$COUNT" | tee "$out/wazero.txt" >&2
	step "simulated races vs bare SQL, compiled for wasip1 and run by the wazero CLI"
	mkdir -p "$out/bin"
	go build -o "$out/bin/wazero" github.com/tetratelabs/wazero/cmd/wazero
	PATH="$out/bin:$(go env GOROOT)/lib/wasm:$PATH" GOWASIRUNTIME=wazero GOOS=wasip1 GOARCH=wasm \
		go test ./runtime/script/interp -run '^$' -bench 'Race' -benchtime 5x -count "$COUNT" | tee "$out/wasip1.txt" >&2
fi

need go
step "build: twice (native), and the export with the GOOS=js runtime built as twice serve builds it"
go build -o "$out/twice" ./cmd/twice
rm -rf "$out/site"
"$out/twice" build -o "$out/site" >&2
cp "$(ls "$out"/site/assets/twice.*.wasm)" "$out/twice.wasm"
if [ -n "$BEFORE" ]; then
	step "build: the export of $BEFORE, for the peer benchmarks' before"
	wt=$(mktemp -d -t twice-before-XXXXXX)
	git worktree add --detach -q "$wt" "$BEFORE"
	rm -rf "$out/before-site"
	(cd "$wt" && go run ./cmd/twice build -o "$out/before-site") >&2
	git worktree remove --force "$wt"
fi

if ! skip sizes; then
	need gzip brotli
	step "download sizes"
	size() { wc -c <"$1" | tr -d ' '; }
	gz() { gzip -9 -c "$1" | wc -c | tr -d ' '; }
	br() { brotli -q 11 -c "$1" | wc -c | tr -d ' '; }
	a="$out/site/assets"
	# What a page with a block fetches before its first result: the loader,
	# the entry module and its imports (boot.js, runtime-client.js,
	# config.js; the rest of the element loads after the first result),
	# offline.js, and the worker (wasm_exec.js is inside it).
	js=("$a"/twice.*.js "$a"/boot.*.js "$a"/runtime-client.*.js "$a"/config.*.js "$a"/offline.*.js "$a"/worker.*.js)
	css=("$a"/style.*.css "$a"/playground.*.css)
	sum() { local f=$1 t=0; shift; for x in "$@"; do t=$((t + $($f "$x"))); done; echo $t; }
	{
		echo "# the exported module: GOOS=js GOARCH=wasm go build with server.WasmBuildFlags"
		echo "wasm.raw $(size "$out/twice.wasm")"
		echo "wasm.gz $(gz "$out/twice.wasm")"
		echo "wasm.br $(br "$out/twice.wasm")"
		sq=$(ls "$a"/sqlite3.*.wasm)
		echo "# the SQLite module the Go module imports: ${sq##*/}"
		echo "sqlite.raw $(size "$sq")"
		echo "sqlite.gz $(gz "$sq")"
		echo "sqlite.br $(br "$sq")"
		echo "# ${js[*]##*/}"
		echo "js.raw $(sum size "${js[@]}")"
		echo "js.gz $(sum gz "${js[@]}")"
		echo "js.br $(sum br "${js[@]}")"
		echo "# ${css[*]##*/}"
		echo "css.raw $(sum size "${css[@]}")"
		echo "css.gz $(sum gz "${css[@]}")"
		echo "css.br $(sum br "${css[@]}")"
		echo "total.br $(($(br "$out/twice.wasm") + $(br "$sq") + $(sum br "${js[@]}") + $(sum br "${css[@]}")))"
		echo "total.gz $(($(gz "$out/twice.wasm") + $(gz "$sq") + $(sum gz "${js[@]}") + $(sum gz "${css[@]}")))"
		w=$(ls "$a"/twice.*.wasm)
		echo "# the export's own precompressed files: ${w##*/}.{br,gz}"
		echo "export.wasm.br $(size "$w.br")"
		echo "export.wasm.gz $(size "$w.gz")"
	} | tee "$out/sizes.txt" >&2
fi

if ! skip wrk; then
	need wrk nginx curl
	step "servers: twice serve on :$PORT_TWICE, nginx on :$PORT_NGINX"
	"$out/twice" serve --addr "127.0.0.1:$PORT_TWICE" --wasm "$out/twice.wasm" >"$out/serve.log" 2>&1 &
	pids+=($!)
	ng="$out/nginx"
	mkdir -p "$ng/tmp"
	sed -e "s|@PREFIX@|$ng|g" -e "s|@ROOT@|$out/site|g" -e "s|@PORT@|$PORT_NGINX|g" docs/perf/nginx.conf >"$ng/nginx.conf"
	nginx -p "$ng" -c "$ng/nginx.conf" -g 'daemon off;' &
	pids+=($!)

	wasm=/assets/$(basename "$(ls "$out"/site/assets/twice.*.wasm)")
	page=/lessons/claim-race/
	declare -A url=([page]=$page [wasm]=$wasm)
	for port in "$PORT_TWICE" "$PORT_NGINX"; do
		for target in page wasm; do
			u="http://127.0.0.1:$port${url[$target]}"
			for i in $(seq 100); do
				curl -fsS -o /dev/null -H 'Accept-Encoding: gzip' "$u" 2>/dev/null && break
				[ "$i" = 100 ] && { echo "run.sh: $u does not answer" >&2; cat "$out/serve.log" "$ng/error.log" >&2; exit 1; }
				sleep 0.2
			done
			enc=$(curl -fsS -D - -o /dev/null -H 'Accept-Encoding: gzip' "$u" | tr -d '\r' | awk -F': ' 'tolower($1)=="content-encoding"{print $2}')
			echo "GET $u -> Content-Encoding: ${enc:-identity}" >&2
		done
	done

	mkdir -p "$out/wrk"
	for rep in $(seq "$WRK_REPS"); do
		for target in page wasm; do
			for srv in twice nginx; do
				port=$PORT_TWICE
				[ "$srv" = nginx ] && port=$PORT_NGINX
				step "wrk $srv $target, rep $rep/$WRK_REPS"
				wrk -t2 -c"$WRK_CONNECTIONS" -d"$WRK_DURATION" --timeout "$WRK_TIMEOUT" --latency -H 'Accept-Encoding: gzip' \
					"http://127.0.0.1:$port${url[$target]}" | tee "$out/wrk/$srv-$target-$rep.txt" >&2
			done
		done
	done
	cleanup
	pids=()
fi

if ! skip browser; then
	step "headless Chromium: cold start, races/s in the worker, the heavy blocks, memory (internal/perf BenchmarkBrowser*)"
	TWICE_PERF_SITE="$out/site" TWICE_PERF_BEFORE="${BEFORE:+$out/before-site}" go test ./internal/perf -run '^$' -bench 'Browser' -benchtime 1x -count "$BROWSER_COUNT" -timeout 90m | tee "$out/browser.txt" >&2
fi

if ! skip peer; then
	need npm
	step "the peer: @sqlite.org/sqlite-wasm@$PEER_VERSION from npm, in docs/perf/peer's page"
	mkdir -p "$out/npm"
	npm install --prefix "$out/npm" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts \
		"@sqlite.org/sqlite-wasm@$PEER_VERSION" >&2
	pkg="$out/npm/node_modules/@sqlite.org/sqlite-wasm"
	got=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$pkg/package.json")
	[ "$got" = "$PEER_VERSION" ] || { echo "run.sh: npm installed @sqlite.org/sqlite-wasm $got, not $PEER_VERSION" >&2; exit 1; }
	rm -rf "$out/peer"
	mkdir -p "$out/peer/sqlite-wasm"
	cp docs/perf/peer/index.html docs/perf/peer/peer.js docs/perf/peer/worker.mjs docs/perf/peer/race.mjs "$out/peer/"
	cp "$pkg"/dist/index.mjs "$pkg"/dist/sqlite3.wasm "$pkg"/dist/sqlite3-opfs-async-proxy.js "$out/peer/sqlite-wasm/"
	step "headless Chromium: twice against the peer, alternating, fresh profiles (internal/perf BenchmarkPeer*)"
	TWICE_PERF_SITE="$out/site" TWICE_PERF_PEER="$out/peer" TWICE_PERF_BEFORE="${BEFORE:+$out/before-site}" go test ./internal/perf -run '^$' -bench '^BenchmarkPeer' -benchtime 1x -count "$BROWSER_COUNT" -timeout 30m | tee "$out/peer.txt" >&2
fi

step "report"
go run ./internal/perf/perfreport "$out" | tee "$out/report.md"
echo >&2
echo "raw output and report.md in $out" >&2
