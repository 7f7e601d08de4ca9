#!/usr/bin/env python3
"""tests/lib/report-links.py BUNDLE: checks that every link in a report bundle's
report.html (href) and report.md (Markdown link targets) is a relative path
to a file that the bundle holds and that SHA256SUMS lists. Prints
"html N md M broken 0", then one line per broken link; exits 1 on any."""
import html.parser
import os
import re
import sys
from urllib.parse import unquote, urlsplit


class Hrefs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src"):
                self.hrefs.append(v or "")


def main():
    root = sys.argv[1]
    listed = set()
    with open(os.path.join(root, "SHA256SUMS"), encoding="utf-8") as f:
        for line in f:
            listed.add(line.rstrip("\n")[66:])
    p = Hrefs()
    with open(os.path.join(root, "report.html"), encoding="utf-8") as f:
        p.feed(f.read())
    with open(os.path.join(root, "report.md"), encoding="utf-8") as f:
        md = re.findall(r"\]\(([^)\s]*)\)", f.read())
    broken = []
    for where, links in (("html", p.hrefs), ("md", md)):
        for h in links:
            u = urlsplit(h)
            path = unquote(u.path)
            if u.scheme or u.netloc or path.startswith("/") or ".." in path.split("/"):
                broken.append(f"{where}: {h}: not a relative path inside the bundle")
            elif not os.path.isfile(os.path.join(root, path)):
                broken.append(f"{where}: {h}: no such file in the bundle")
            elif path not in listed:
                broken.append(f"{where}: {h}: not listed in SHA256SUMS")
    print(f"html {len(p.hrefs)} md {len(md)} broken {len(broken)}")
    for b in broken:
        print(b)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
