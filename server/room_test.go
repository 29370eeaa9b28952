package server

import (
	"image"
	"image/color"
	"net"
	"net/url"
	"strings"
	"testing"

	qr "github.com/piglig/go-qr"
)

// The QR code printed in the terminal reads back as the URL: the drawing
// is turned into an image, module for module, and decoded.
func TestQRTextReadsBack(t *testing.T) {
	for _, want := range []string{"http://192.168.1.23:8084/", "http://[2001:db8::17]:8080/"} {
		drawing, err := QRText(want)
		if err != nil {
			t.Fatal(err)
		}
		rows := qrModules(drawing)
		const scale, margin = 4, 8
		w := len(rows[0])
		img := image.NewGray(image.Rect(0, 0, w*scale+2*margin, len(rows)*scale+2*margin))
		for i := range img.Pix {
			img.Pix[i] = 255
		}
		for y, row := range rows {
			for x, light := range row {
				if light {
					continue
				}
				if y >= w {
					continue // the half row past an odd height: not a module
				}
				for dy := range scale {
					for dx := range scale {
						img.SetGray(margin+x*scale+dx, margin+y*scale+dy, color.Gray{0})
					}
				}
			}
		}
		// On a terminal's dark background the light modules are the
		// drawn ones: the image is what a camera sees.
		got, err := qr.Decode(img)
		if err != nil || got != want {
			t.Errorf("QR code of %q reads back as %q, %v:\n%s", want, got, err, drawing)
		}
		if n := strings.Count(drawing, "\n"); n > 30 {
			t.Errorf("the code of %q takes %d lines of the terminal", want, n)
		}
	}
}

// LANURLs names the machine's network addresses for a server on every
// interface, the one address it was given otherwise, and none on loopback.
func TestLANURLs(t *testing.T) {
	if got := LANURLs(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}); len(got) != 0 {
		t.Errorf("loopback: %q", got)
	}
	if got := LANURLs(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 8084}); len(got) != 1 || got[0] != "http://192.168.1.5:8084/" {
		t.Errorf("one address: %q", got)
	}
	for _, u := range LANURLs(&net.TCPAddr{IP: net.IPv4zero, Port: 8084}) {
		p, err := url.Parse(u)
		if err != nil || p.Port() != "8084" {
			t.Errorf("%q: not a URL with port 8084", u)
			continue
		}
		ip := net.ParseIP(p.Hostname())
		if ip == nil || ip.IsLoopback() || ip.To4() == nil {
			t.Errorf("%q: want a non-loopback IPv4 address for 0.0.0.0", u)
		}
	}
}
