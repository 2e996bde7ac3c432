#!/usr/bin/env python3
"""The documentation holds together (docs/ is installed with the SDK; the README is its front door):

1. README.md starts with the two commands, scripts/demo.sh then scripts/test.sh, and both exist;
2. README.md stays a front door: at most 200 lines, with a picture; every page of docs/ is reached
   from it by links (its map of the docs, and the pages that map links);
3. every relative link and image of README.md and docs/**.md names a file that exists, and an
   anchor (#...) names a heading of that page (GitHub's slugs);
4. every sensor blueprint the build lists (sensim blueprints --json) has its page: its id appears
   in docs/sensors/ (the recorder in docs/recorder.md).

usage: docs.py SOURCE_ROOT [SENSIM PLUGIN_DIR]"""
import json
import os
import re
import subprocess
import sys

root = sys.argv[1]
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL", msg, file=sys.stderr)


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    s = re.sub(r"[`*_]", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    text = re.sub(r"```.*?```", "", open(path, encoding="utf-8").read(), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


pages = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(root, "docs")) for f in fs if f.endswith(".md")]
readme = os.path.join(root, "README.md")

# 1. the two commands first
lines = open(readme, encoding="utf-8").read().split("\n")
cmds = [ln for ln in lines if ln.startswith("bash scripts/")]
first = [ln.split("#")[0].strip() for ln in lines if ln.strip() and not ln.startswith(("#", "```"))][:2]
if first != ["bash scripts/demo.sh", "bash scripts/test.sh"]:
    fail(f"README.md: the first two commands are {first}, not bash scripts/demo.sh and bash scripts/test.sh")
for c in ("scripts/demo.sh", "scripts/test.sh"):
    if not os.path.isfile(os.path.join(root, c)):
        fail(f"{c} is missing")

# 2. a front door
if len(lines) > 200:
    fail(f"README.md has {len(lines)} lines; the front door keeps to 200 (the reference is docs/)")
text = "\n".join(lines)
if not re.search(r'<img src="docs/[^"]+\.png"|!\[[^\]]*\]\(docs/[^)]+\.png\)', text):
    fail("README.md shows no picture from docs/")


def links(src):
    """The local files a page links to (code blocks left out)."""
    body = re.sub(r"```.*?```", "", open(src, encoding="utf-8").read(), flags=re.S)
    for m in re.finditer(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"", body):
        url = m.group(1) or m.group(2)
        if not re.match(r"^[a-z]+:", url):
            yield url, os.path.normpath(os.path.join(os.path.dirname(src), url.partition("#")[0])) if url.partition("#")[0] else src


# every page is found from the front door, following links (a new page needs a link: README's
# map of the docs, or a page it reaches)
seen, todo = {os.path.normpath(readme)}, [readme]
while todo:
    for _, target in links(todo.pop()):
        if target.endswith(".md") and target not in seen and os.path.isfile(target):
            seen.add(target)
            todo.append(target)
for p in pages:
    if os.path.normpath(p) not in seen:
        fail(f"{os.path.relpath(p, root)} is reached by no link from README.md (add it to the map of the docs)")

# 3. links and anchors
for src in [readme] + pages:
    for url, target in links(src):
        frag = url.partition("#")[2]
        where = os.path.relpath(src, root)
        if not os.path.exists(target):
            fail(f"{where}: link to {url}: no such file")
        elif frag and target.endswith(".md") and frag not in anchors(target):
            fail(f"{where}: link to {url}: no heading '#{frag}' there")

# 4. a page per sensor
if len(sys.argv) > 3:
    out = subprocess.run([sys.argv[2], "blueprints", "--json", "--plugin-dir", sys.argv[3]], capture_output=True,
                         text=True, env={**os.environ, "SENSIM_PLUGIN_PATH": ""})
    ids = re.findall(r'"id"\s*:\s*"(sensor\.[^"]+)"', out.stdout)
    if out.returncode or not ids:
        fail(f"sensim blueprints --json: exit {out.returncode}, {len(ids)} sensors: {out.stderr}")
    sensor_docs = "".join(open(p, encoding="utf-8").read() for p in pages
                          if os.sep + "sensors" + os.sep in p or p.endswith("recorder.md"))
    for i in sorted(set(ids)):
        short = i.rsplit(".", 1)[1]
        if f"`{i}`" not in sensor_docs and not re.search(rf"`sensor\.[a-z]+\.[a-z_]+`[^|\n]*`\.{short}`", sensor_docs):
            fail(f"sensor blueprint {i} has no page in docs/sensors/")

print(f"{len(pages)} pages and README.md checked, {len(fails)} failures", file=sys.stderr)
sys.exit(1 if fails else 0)
