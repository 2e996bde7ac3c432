#!/usr/bin/env python3
"""funclen.py — functions longer than a limit in C files (issue 37's "functions over 100 lines").

    python3 tools/funclen.py [--limit N] [--list] DIR...

A function is a top-level `name(...) {` (tools/callcycles.py's scanner: comments, strings and
preprocessor lines blanked); its length runs from the line of its name to its closing brace.
Prints the count over the limit against all functions, and each with --list, longest first.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callcycles import strip, KEYWORDS  # noqa: E402


def functions(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        s = strip(f.read())
    out = []
    depth, last_top, start, name = 0, 0, None, None
    for i, c in enumerate(s):
        if c == '{':
            if depth == 0:
                head = s[last_top:i]
                m = re.search(r'([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*$', head)
                if m and m.group(1) not in KEYWORDS and '=' not in head:
                    name = m.group(1)
                    start = s.count('\n', 0, last_top + m.start()) + 1
                else:
                    name = None
            depth += 1
        elif c == '}':
            depth = max(0, depth - 1)
            if depth == 0:
                if name:
                    out.append((name, start, s.count('\n', 0, i) + 1 - start + 1))
                name = None
                last_top = i + 1
        elif c == ';' and depth == 0:
            last_top = i + 1
    return out


def main():
    args = sys.argv[1:]
    limit, show = 100, False
    dirs = []
    it = iter(args)
    for a in it:
        if a == '--limit':
            limit = int(next(it))
        elif a == '--list':
            show = True
        else:
            dirs.append(a)
    rows = []
    for d in dirs or ['engine', 'plugins']:
        for root, _, fs in os.walk(d):
            for f in sorted(fs):
                if f.endswith('.c'):
                    p = os.path.join(root, f)
                    rows += [(n, p, ln, length) for n, ln, length in functions(p)]
    over = sorted((r for r in rows if r[3] > limit), key=lambda r: -r[3])
    pct = 100.0 * len(over) / len(rows) if rows else 0
    print(f'functions over {limit} lines: {len(over)} of {len(rows)} ({pct:.1f} %)')
    if show:
        for n, p, ln, length in over:
            print(f'  {length:5d}  {p}:{ln}  {n}')


if __name__ == '__main__':
    main()
