package class

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkVotes sends votes over HTTP (loopback TCP) to a class kept in
// a SQLite file, from 200 voters at once (-cpu sets how many requests are
// in flight: GOMAXPROCS × 50), each vote answered once it is on disk. It
// reports votes a second and the latency of a vote under that load (p50,
// p99). The rates are lifted (the clock jumps an hour per look) so that
// every vote is stored: this measures the store, not the refusals.
func BenchmarkVotes(b *testing.B) {
	var tick atomic.Int64
	s, err := Open(Config{DB: filepath.Join(b.TempDir(), "class.db"), Blocks: blocks,
		Now: func() time.Time { return time.Unix(tick.Add(3600), 0) }})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	hs := httptest.NewServer(s)
	defer hs.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	defer client.CloseIdleConnections()
	var mu sync.Mutex
	var lat []time.Duration
	var next atomic.Int64
	b.SetParallelism(50)
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			i := next.Add(1)
			body := fmt.Sprintf(`{"block":%q,"round":1,"voter":"voter-%04d","choice":%d}`, blockA, i%200, i%11)
			t0 := time.Now()
			resp, err := client.Post(hs.URL+VotesPath, "application/json", strings.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				b.Errorf("vote: %d", resp.StatusCode)
				return
			}
			mine = append(mine, time.Since(t0))
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "votes/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
