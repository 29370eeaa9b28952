package server

import (
	"fmt"
	"image"
	"image/color"
	"net"
	"net/url"
	"regexp"
	"strconv"
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

// The index's QR code reads back as the URL, and only a live server's
// index with a room URL shows it.
func TestQRSVGOnIndex(t *testing.T) {
	const want = "http://10.1.2.3:8080/"
	svg, err := QRSVG(want)
	if err != nil {
		t.Fatal(err)
	}
	var side int
	fmt.Sscanf(svg[strings.Index(svg, "viewBox=")+len(`viewBox="0 0 `):], "%d", &side)
	const scale = 4
	img := image.NewGray(image.Rect(0, 0, side*scale, side*scale))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for _, m := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		for dy := range scale {
			for dx := range scale {
				img.SetGray(x*scale+dx, y*scale+dy, color.Gray{0})
			}
		}
	}
	if got, err := qr.Decode(img); err != nil || got != want {
		t.Errorf("the SVG code reads back as %q, %v", got, err)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.md": "# A\n\ntext\n"})
	for _, tc := range []struct {
		live bool
		room string
		show bool
	}{{true, want, true}, {true, "", false}, {false, want, false}} {
		site, err := Render(Options{LessonsDir: dir, Runtime: fakeRuntime(), Brotli: BrotliNever, Live: tc.live, RoomURL: tc.room})
		if err != nil {
			t.Fatal(err)
		}
		index := string(site.Files["index.html"].Body)
		if got := strings.Contains(index, svg) && strings.Contains(index, `<a href="`+want+`">`); got != tc.show {
			t.Errorf("live %v, room %q: QR code shown = %v, want %v", tc.live, tc.room, got, tc.show)
		}
	}
}
