#!/usr/bin/python3
"""`qrt inspect MODEL --html FILE` opened in headless Chromium.

Usage: html_chromium_test.py QRT_CLI MODEL

Writes the page (with --profile too), has Chromium render it and dump the DOM after its
script ran, and checks that each pane holds one `class="node"` element per node of its graph
(as `qrt inspect --json` counts them), that the optimized pane has a fused node linked to
nodes of the other pane, and that a screenshot is a PNG showing the fused nodes' colour.
Exits 77 (ctest's SKIP_RETURN_CODE) when Chromium is not installed.
"""
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--no-first-run", "--disable-extensions", "--hide-scrollbars"]
FUSED_RGB = (0xff, 0xc4, 0x7e)  # g.node.fused rect's fill in api/graph_html.cc


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


class PaneCounter(html.parser.HTMLParser):
    """Counts node elements per pane section and collects their link attributes."""

    def __init__(self):
        super().__init__()
        self.pane = None
        self.nodes = {}
        self.fused = []
        self.ids = {}
        self.zoomed = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "pane" in a.get("class", "").split():
            self.pane = a.get("id")
            self.nodes[self.pane] = 0
            self.zoomed[self.pane] = a.get("data-zoom")
        if tag == "g" and self.pane and a.get("class", "").split()[:1] == ["node"]:
            self.nodes[self.pane] += 1
            self.ids[a.get("id")] = self.pane
            if "fused" in a["class"].split():
                self.fused.append(a)

    def handle_endtag(self, tag):
        if tag == "section":
            self.pane = None


def run(command, timeout=120):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


def chromium(binary, profile_dir, *args):
    return run([binary] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile_dir] + list(args))


def png_pixels(data):
    """Width, height and rows of RGB(A) pixels of an 8-bit RGB or RGBA PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("the screenshot is not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                fail("unexpected PNG format: depth %d, colour type %d" % (depth, colour))
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + left) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    cli, model = sys.argv[1], sys.argv[2]
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        print("SKIP: chromium is not installed (tools/install-deps.sh installs it)")
        return SKIP

    info = run([cli, "inspect", model, "--json"])
    if info.returncode != 0:
        fail("qrt inspect --json: " + info.stderr.decode())
    j = json.loads(info.stdout)
    want_before, want_after = sum(j["ops_before"].values()), sum(j["ops_after"].values())

    with tempfile.TemporaryDirectory(prefix="qrt_html_") as tmp:
        page = os.path.join(tmp, "graph.html")
        made = run([cli, "inspect", model, "--html", page, "--profile"])
        if made.returncode != 0:
            fail("qrt inspect --html --profile: " + made.stderr.decode())
        text = open(page, encoding="utf-8").read()
        if "http://" in text or "https://" in text:
            fail("the page names a URL")
        if "data-share=" not in text:
            fail("--profile gave no time shares")

        url = "file://" + page
        dom = chromium(binary, os.path.join(tmp, "profile"), "--dump-dom", url)
        if dom.returncode != 0 or not dom.stdout:
            fail("chromium --dump-dom failed (%d): %s" % (dom.returncode, dom.stderr.decode()[-2000:]))
        counter = PaneCounter()
        counter.feed(dom.stdout.decode("utf-8"))
        got_before, got_after = counter.nodes.get("pane-before"), counter.nodes.get("pane-after")
        print("rendered nodes: before %s (want %d), after %s (want %d), fused %d" %
              (got_before, want_before, got_after, want_after, len(counter.fused)))
        if got_before != want_before or got_after != want_after:
            fail("node counts differ from qrt inspect --json")
        if not counter.fused:
            fail("no fused node in the optimized pane")
        for g in counter.fused:
            refs = g.get("data-replaces-ref", "").split()
            if not refs or any(counter.ids.get(r) != "pane-before" for r in refs):
                fail("fused node %r links to %r, not to nodes of the before pane" % (g.get("data-name"), refs))
        if not all(counter.zoomed.values()):
            fail("the page's script did not run (no pane has its zoom set)")

        shot = os.path.join(tmp, "graph.png")
        # Without a profile, fused nodes have their own fill colour; look for it in the picture.
        plain = os.path.join(tmp, "plain.html")
        if run([cli, "inspect", model, "--html", plain]).returncode != 0:
            fail("qrt inspect --html failed")
        res = chromium(binary, os.path.join(tmp, "profile"), "--screenshot=" + shot, "--window-size=1600,1000",
                       "file://" + plain)
        if not os.path.exists(shot) or os.path.getsize(shot) == 0:
            fail("no screenshot (%d): %s" % (res.returncode, res.stderr.decode()[-2000:]))
        width, height, bpp, rows = png_pixels(open(shot, "rb").read())
        fused_pixels = sum(1 for row in rows for x in range(0, width * bpp, bpp)
                           if abs(row[x] - FUSED_RGB[0]) <= 2 and abs(row[x + 1] - FUSED_RGB[1]) <= 2 and
                           abs(row[x + 2] - FUSED_RGB[2]) <= 2)
        print("screenshot %dx%d, %d bytes, %d pixels of the fused colour" %
              (width, height, os.path.getsize(shot), fused_pixels))
        if (width, height) != (1600, 1000):
            fail("the screenshot is not 1600x1000")
        if fused_pixels < 200:
            fail("the screenshot shows no fused node")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
