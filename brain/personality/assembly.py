"""One personality document out of a file and the files it includes and extends.

* ``include`` (a file or a list) supplies subtrees, activities and parameters as defaults: the
  including file's own entries win, anything else in an included file is ignored with a warning;
* ``extends`` (one file) is the base the file changes: named sections (subtrees, activities,
  parameters, reactions) are merged by name, ``mood`` and ``schedule`` deeply, any other key is
  replaced;
* ``overrides`` then change single values by path (see :mod:`brain.personality.overrides`).

Every value keeps the location it was written at, so problems found later name the right file.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .issues import IssueList, display_path
from .located import LMap, Loc, parse_located, short_repr, suggest
from .overrides import TOP_KEYS, apply_overrides

__all__ = ["Assembler", "deep_merge"]

#: What an included file may provide (besides its own includes, name and description).
INCLUDED_SECTIONS = ("subtrees", "activities", "parameters", "behaviors")
#: Sections of a base and its extension that are merged name by name.
NAMED_SECTIONS = ("subtrees", "activities", "parameters", "reactions", "behaviors")
#: Sections of a base and its extension merged key by key at every depth.
DEEP_SECTIONS = ("mood", "schedule", "arousal")


class Assembler:
    """Reads a file and what it extends and includes, merges them and applies overrides."""

    def __init__(self, issues: IssueList) -> None:
        self.issues = issues
        #: every file the document was read from or looked for, the personality's own first: what a
        #: running daemon watches for edits
        self.files: list[Path] = []

    def read(self, path: Path, stack: tuple[str, ...] = ()) -> LMap | None:
        """The assembled document of ``path`` (None when it cannot be read); ``stack`` holds the
        files that led here, to catch circular includes and extends."""
        name = display_path(path)
        if path not in self.files:
            self.files.append(path)
        if name in stack:
            chain = " -> ".join([*stack, name])
            self.issues.add(Loc(stack[-1]), "", f"circular extends/include: {chain}")
            return None
        data = self._parse(path, name, stack)
        if data is None:
            return None
        for key in data:
            if key not in TOP_KEYS:
                self.issues.add(data.at(key), str(key), f"unknown top-level key{suggest(key, TOP_KEYS)}"
                                f" (expected one of {', '.join(TOP_KEYS)})")
        return self._assemble(path, data, (*stack, name))

    def _parse(self, path: Path, name: str, stack: tuple[str, ...]) -> LMap | None:
        """The file's own top-level mapping, or None (reported) when it is missing or not one."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            self.issues.add(Loc(stack[-1] if stack else name), "", f"cannot read {name}: {exc.strerror or exc}")
            return None
        try:
            data, problems = parse_located(text, name)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc)
            self.issues.add(Loc(name, line), "", f"not valid YAML: {problem}")
            return None
        for loc, message in problems:
            self.issues.add(loc, "", message)
        if data is None:
            data = LMap(Loc(name, 1))
        if not isinstance(data, LMap):
            self.issues.add(Loc(name, 1), "", f"expected a mapping at the top of the file, got {short_repr(data)}")
            return None
        return data

    def _assemble(self, path: Path, doc: LMap, stack: tuple[str, ...]) -> LMap:
        self._include(doc, path.parent, stack)
        doc = self._extend(doc, path.parent, stack)
        overrides = doc.get("overrides")
        if overrides is not None:
            apply_overrides(doc, overrides, self.issues)
            del doc["overrides"]
        return doc

    def _include(self, doc: LMap, base_dir: Path, stack: tuple[str, ...]) -> None:
        """Merge the included files' subtrees, activities and parameters in, as defaults under the file's own."""
        includes = doc.get("include")
        if includes is None:
            return
        names = [includes] if isinstance(includes, str) else includes
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            self.issues.add(doc.at("include"), "include", f"expected a file name or a list of them, "
                            f"got {short_repr(includes)}")
            return
        for i, rel in enumerate(names):
            included = self.read(base_dir / rel, stack)
            if included is None:
                continue
            where = f"include[{i}]" if isinstance(includes, list) else "include"
            for key in included:
                if key not in (*INCLUDED_SECTIONS, "include", "name", "description"):
                    self.issues.warn(included.at(key), str(key),
                                     f"ignored: an included file provides subtrees, activities and "
                                     f"parameters only (included from {stack[-1]}, {where})")
            for key in INCLUDED_SECTIONS:
                self._merge_named(doc, key, included, child_wins=True)

    def _extend(self, doc: LMap, base_dir: Path, stack: tuple[str, ...]) -> LMap:
        """``doc`` over the base it extends (``doc`` itself when it extends none or the base is broken)."""
        base_name = doc.get("extends")
        if base_name is None:
            return doc
        if not isinstance(base_name, str):
            self.issues.add(doc.at("extends"), "extends", f"expected a file name, got {short_repr(base_name)}")
            return doc
        base = self.read(base_dir / base_name, stack)
        return doc if base is None else self._merge(base, doc)

    def _merge_named(self, target: LMap, key: str, source: LMap, child_wins: bool) -> None:
        """Merge the ``key`` mapping of ``source`` into ``target``'s (``target`` entries win)."""
        incoming = source.get(key)
        if incoming is None:
            return
        if not isinstance(incoming, LMap):
            self.issues.add(source.at(key), key, f"expected a mapping, got {short_repr(incoming)}")
            return
        current = target.get(key)
        if current is None:
            target.put(key, incoming, source.at(key))
            return
        if not isinstance(current, LMap):
            return  # reported when the target is validated
        for name, value in incoming.items():
            if name not in current or not child_wins:
                current.put(name, value, incoming.at(name))

    def _merge(self, base: LMap, child: LMap) -> LMap:
        """``child`` over ``base``: named sections merged by name, mood and schedule deeply, the rest replaced."""
        out = LMap(child.loc)
        for key, value in base.items():
            if key not in ("overrides", "include", "extends"):
                out.put(key, value, base.at(key))
        for key, value in child.items():
            if key in NAMED_SECTIONS and isinstance(out.get(key), LMap) and isinstance(value, LMap):
                merged = LMap(value.loc)
                for k, v in out[key].items():
                    merged.put(k, v, out[key].at(k))
                for k, v in value.items():
                    merged.put(k, v, value.at(k))
                out.put(key, merged, child.at(key))
            elif key in DEEP_SECTIONS and isinstance(out.get(key), LMap) and isinstance(value, LMap):
                out.put(key, deep_merge(out[key], value), child.at(key))
            else:
                out.put(key, value, child.at(key))
        return out


def deep_merge(base: LMap, child: LMap) -> LMap:
    """``child`` over ``base``, mappings merged key by key at every depth."""
    out = LMap(child.loc)
    for k, v in base.items():
        out.put(k, v, base.at(k))
    for k, v in child.items():
        if isinstance(out.get(k), LMap) and isinstance(v, LMap):
            out.put(k, deep_merge(out[k], v), child.at(k))
        else:
            out.put(k, v, child.at(k))
    return out
