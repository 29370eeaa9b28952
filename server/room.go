package server

import (
	"fmt"
	"html"
	"net"
	"slices"
	"strings"

	qr "github.com/piglig/go-qr"
)

// LANURLs returns the URLs other machines can open to reach a server
// listening on addr: for an address on every interface (0.0.0.0, ::, or
// no host), one per non-loopback address of this machine's interfaces that
// are up, IPv4 first, link-local addresses left out; for one address that
// is not loopback, that address. For a loopback address it returns none.
func LANURLs(addr net.Addr) []string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() {
		return nil
	}
	if ip != nil && !ip.IsUnspecified() {
		return []string{"http://" + net.JoinHostPort(host, port) + "/"}
	}
	var ips []net.IP
	ifaces, _ := net.Interfaces()
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsUnspecified() {
				continue
			}
			// A listener on 0.0.0.0 takes IPv4 only.
			if ip != nil && ip.To4() != nil && n.IP.To4() == nil {
				continue
			}
			ips = append(ips, n.IP)
		}
	}
	slices.SortStableFunc(ips, func(a, b net.IP) int {
		if (a.To4() != nil) != (b.To4() != nil) {
			if a.To4() != nil {
				return -1
			}
			return 1
		}
		return 0
	})
	var urls []string
	for _, ip := range ips {
		u := "http://" + net.JoinHostPort(ip.String(), port) + "/"
		if !slices.Contains(urls, u) {
			urls = append(urls, u)
		}
	}
	return urls
}

// QRText draws text as a QR code for a terminal, two modules per
// character cell with the half-block characters, light modules drawn and
// dark ones blank, as on the usual terminal's light text on a dark
// background, within a quiet zone of light modules two wide. Phones'
// cameras read it from the screen; they also read its inverse, which a
// terminal with a light background shows.
func QRText(text string) (string, error) {
	code, err := qr.EncodeText(text, qr.Low)
	if err != nil {
		return "", err
	}
	const quiet = 2
	n := code.Size()
	light := func(x, y int) bool {
		if x < 0 || y < 0 || x >= n || y >= n {
			return true
		}
		return !code.Module(x, y)
	}
	var b strings.Builder
	for y := -quiet; y < n+quiet; y += 2 {
		for x := -quiet; x < n+quiet; x++ {
			top, bottom := light(x, y), y+1 < n+quiet && light(x, y+1)
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteString(" ")
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// qrModules reads a QRText drawing back into rows of modules (true for
// light), for tests.
func qrModules(drawing string) [][]bool {
	var rows [][]bool
	for line := range strings.SplitSeq(strings.TrimRight(drawing, "\n"), "\n") {
		top, bottom := []bool{}, []bool{}
		for _, r := range line {
			top = append(top, r == '█' || r == '▀')
			bottom = append(bottom, r == '█' || r == '▄')
		}
		rows = append(rows, top, bottom)
	}
	return rows
}

// QRSVG draws text as a QR code in SVG, dark modules on a light square
// with a quiet zone four modules wide, labelled for screen readers: what
// the index page of twice serve shows beside the URL a class opens.
func QRSVG(text string) (string, error) {
	code, err := qr.EncodeText(text, qr.Low)
	if err != nil {
		return "", err
	}
	const quiet = 4
	n := code.Size()
	var path strings.Builder
	for y := range n {
		for x := range n {
			if code.Module(x, y) {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	side := n + 2*quiet
	return fmt.Sprintf(`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="200" height="200" role="img" aria-label="QR code of %s"><rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		side, side, html.EscapeString(text), side, side, path.String()), nil
}
