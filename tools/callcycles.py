#!/usr/bin/env python3
"""callcycles.py — the engine's call cycles between files and include cycles between folders.

    python3 tools/callcycles.py [engine-dir] [--all] [--exclude DIR ...]

A small C scanner, no compiler: comments, strings and preprocessor lines are blanked; a
function is defined where an identifier followed by a parameter list and '{' opens at brace
depth 0 (static ones count only inside their file); a call is any other `name(`. File A
depends on file B when A calls a non-static function B defines. The strongly connected
components of that graph (Tarjan) are the call cycles; the largest one is the figure of
issue 37 ("no cycle over three files"). Includes are read from `#include "..."` lines,
resolved relative to the including file, and folded to the folder under engine/.

Prints the largest call cycle (its files), every call cycle with --all, and every include
cycle between folders. Exit status 0 always: it measures, it does not judge.
"""
import os
import re
import sys

IDENT = re.compile(r'[A-Za-z_]\w*')
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else', 'case',
            '_Alignof', 'alignof', '_Static_assert', 'defined', '__attribute__', 'typeof',
            '__typeof__', '_Generic'}


def strip(src):
    """Blanks comments, string and char literals and preprocessor lines; keeps newlines."""
    out = []
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c == '#':
            # a preprocessor line, with its continuations
            while i < n and src[i] != '\n':
                if src[i] == '\\' and i + 1 < n and src[i + 1] == '\n':
                    out.append('\n')
                    i += 2
                    continue
                i += 1
            continue
        if c == '/' and i + 1 < n and src[i + 1] == '*':
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
            continue
        if c == '/' and i + 1 < n and src[i + 1] == '/':
            j = src.find('\n', i)
            j = n if j < 0 else j
            i = j
            continue
        if c in '"\'':
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            out.append(' ' * (j + 1 - i))
            i = j + 1
            line_start = False
            continue
        out.append(c)
        if c == '\n':
            line_start = True
        elif not c.isspace():
            line_start = False
        i += 1
    return ''.join(out)


def scan(path):
    """(defined non-static names, defined static names, called names) of one C file."""
    with open(path, encoding='utf-8', errors='replace') as f:
        s = strip(f.read())
    defs, statics, calls = set(), set(), set()
    depth = 0
    i, n = 0, len(s)
    last_top = 0  # where the current top-level declaration began
    while i < n:
        c = s[i]
        if c == '{':
            if depth == 0:
                # a definition when the text since the last ';' or '}' ends in `name(...)`
                head = s[last_top:i]
                m = re.search(r'([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*$', head)
                if m and m.group(1) not in KEYWORDS and '=' not in head:
                    (statics if re.search(r'\bstatic\b', head) else defs).add(m.group(1))
            depth += 1
        elif c == '}':
            depth = max(0, depth - 1)
            if depth == 0:
                last_top = i + 1
        elif c == ';' and depth == 0:
            last_top = i + 1
        elif depth > 0 and (c.isalpha() or c == '_'):
            m = IDENT.match(s, i)
            name = m.group(0)
            j = m.end()
            while j < n and s[j] in ' \t\n':
                j += 1
            if j < n and s[j] == '(' and name not in KEYWORDS:
                calls.add(name)
            i = m.end()
            continue
        i += 1
    return defs, statics, calls


def tarjan(graph):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    args = sys.argv[1:]
    show_all = '--all' in args
    exclude = set()
    rest = []
    it = iter(args)
    for a in it:
        if a == '--all':
            continue
        if a == '--exclude':
            exclude.add(next(it).strip('/'))
            continue
        rest.append(a)
    root = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'engine')
    root = os.path.normpath(root)

    cfiles, allfiles = [], []
    for d, _, fs in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel.split(os.sep)[0] in exclude:
            continue
        for f in sorted(fs):
            if f.endswith(('.c', '.h')):
                allfiles.append(os.path.join(d, f))
                if f.endswith('.c'):
                    cfiles.append(os.path.join(d, f))

    # ---- call graph between files ----
    info = {p: scan(p) for p in cfiles}
    owner = {}
    for p, (defs, _, _) in info.items():
        for name in defs:
            owner.setdefault(name, set()).add(p)
    graph = {}
    for p, (defs, statics, calls) in info.items():
        tgt = set()
        for name in calls:
            if name in statics or name in defs:
                continue
            for q in owner.get(name, ()):
                if q != p:
                    tgt.add(q)
        graph[p] = tgt
    comps = [c for c in tarjan(graph) if len(c) > 1]
    comps.sort(key=lambda c: (-len(c), c))
    rel = lambda p: os.path.relpath(p, root)
    big = comps[0] if comps else []
    print(f'call cycles between engine files: {len(comps)}; largest: {len(big)} files '
          f'(of {len(cfiles)} .c files)')
    for c in (comps if show_all else comps[:1]):
        print(f'  [{len(c)}] ' + ' '.join(rel(p) for p in c))

    # ---- include cycles between folders ----
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    fgraph = {}
    for p in allfiles:
        src_dir = os.path.dirname(p)
        folder = rel(src_dir).split(os.sep)[0]
        with open(p, encoding='utf-8', errors='replace') as f:
            text = f.read()
        for m in inc.finditer(text):
            q = os.path.normpath(os.path.join(src_dir, m.group(1)))
            if not q.startswith(root + os.sep) or not os.path.exists(q):
                continue
            qf = rel(os.path.dirname(q)).split(os.sep)[0]
            if qf != folder:
                fgraph.setdefault(folder, set()).add(qf)
            fgraph.setdefault(qf, set())
    fcomps = [c for c in tarjan(fgraph) if len(c) > 1]
    fcomps.sort(key=lambda c: (-len(c), c))
    print(f'include cycles between folders: {len(fcomps)}'
          + (f'; largest: {len(fcomps[0])} folders' if fcomps else ''))
    for c in fcomps:
        print(f'  [{len(c)}] ' + ' '.join(c))
        # the edges inside the cycle, so a reader sees which includes close it
        for a in c:
            for b in sorted(fgraph[a]):
                if b in c:
                    print(f'      {a} -> {b}')


if __name__ == '__main__':
    main()
