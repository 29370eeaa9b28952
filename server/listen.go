package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// DefaultAddr is where twice serve listens unless told otherwise: the
// loopback interface only, so a classroom laptop does not publish the
// server to the network by accident.
const DefaultAddr = "127.0.0.1:8080"

// NewHTTPServer returns an http.Server for h with timeouts set: a slow or
// idle client cannot hold a connection open indefinitely. The write
// timeout leaves room for the wasm module (about 3 MB compressed) on a
// slow link.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// IsLoopback reports whether addr (HOST:PORT) names only the loopback
// interface. An empty host, as in ":8080", means every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Serve serves h on l until ctx is done, then shuts down gracefully,
// giving requests in flight five seconds to finish.
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := NewHTTPServer(h)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}
