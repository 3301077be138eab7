#!/usr/bin/env python3
"""Lists file-level import cycles inside each crate of the workspace.

A file depends on another when it names an item of that file's module through a
`use` or a path (`crate::a::b`, `super::x`, `self::y`). Module declarations
(`mod x;`) and re-exports (`pub use`) are not dependencies: they are how a
parent presents its children, not how code leans on code. Tests (`#[cfg(test)]`
modules and `*tests*.rs` files) are left out, since they may see everything.
Prints every strongly connected component of more than one file, per crate, and
exits 1 when there is any, so CI can hold the line.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def module_files(src):
    """Maps a module path (tuple) to its file, for every file under src."""
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("lib", "main", "mod"):
                parts = parts[:-1]
            mods[tuple(parts)] = os.path.join(dirpath, f)
    return mods


def strip(text):
    """Drops comments, strings and #[cfg(test)] modules."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def paths_in(text):
    """Yields the module paths a file names: `crate::a::b`, `super::x`, `self::y`,
    and the groups of `use` trees (`use crate::{a, b::c}`)."""
    text = re.sub(r"^\s*pub(\([^)]*\))?\s+use\s[^;]*;", "", text, flags=re.M)
    text = re.sub(r"^\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*;", "", text, flags=re.M)
    for m in re.finditer(r"\buse\s+((?:crate|super|self)(?:::\w+)*)::\{([^;]*)\};", text, re.S):
        base = m.group(1)
        for item in re.split(r"[,{}\s]+", m.group(2)):
            if item and item != "self":
                yield base + "::" + item.split("::")[0]
        yield base
    for m in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", text):
        yield m.group(1)


def resolve(path, here, mods):
    parts = path.split("::")
    if parts[0] == "crate":
        cur, rest = (), parts[1:]
    else:
        cur = here
        rest = parts
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                cur = cur[:-1]
            rest = rest[1:]
    best = cur if cur in mods else None
    for name in rest:
        cur = cur + (name,)
        if cur in mods:
            best = cur
        else:
            break
    return best


def sccs(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter[0]; counter[0] += 1
        stack.append(start); on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(graph[w])))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def main():
    found = 0
    crates_dir = os.path.join(ROOT, "crates")
    for krate in sorted(os.listdir(crates_dir)):
        src = os.path.join(crates_dir, krate, "src")
        if not os.path.isdir(src):
            continue
        mods = module_files(src)
        graph = {m: set() for m in mods}
        for mod, path in mods.items():
            if "tests" in os.path.basename(path) or mod and mod[-1].startswith("tests"):
                continue
            text = strip(open(path, encoding="utf-8").read())
            for p in paths_in(text):
                target = resolve(p, mod, mods)
                if target is not None and target != mod and target[: len(mod)] != mod:
                    graph[mod].add(target)
        for comp in sccs(graph):
            found += 1
            names = ", ".join("/".join(c) or "lib" for c in comp)
            print(f"{krate}: {names}")
    print(f"{found} cycle(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
