#!/usr/bin/python3
"""Regenerates ops/ops.h's declarations and ops/registry.cc's list from the OpDefs that the
files in ops/ define (`const OpDef kFooOp{...}`), grouped by file, in file order.

  /usr/bin/python3 tools/update_registry.py          # rewrite both files
  /usr/bin/python3 tools/update_registry.py --check  # exit 1 if either is out of date (ctest runs this)
"""
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def defined_ops():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "ops", "*.cc"))):
        names = re.findall(r"^const OpDef (k\w+Op)\{", open(path).read(), re.M)
        if names:
            out.append((os.path.basename(path), names))
    return out


def render_header(text, ops):
    head = text[:text.index("// " + ops[0][0])] if ("// " + ops[0][0]) in text else text[:text.index("namespace qrt {") + 16] + "\n"
    body = "".join(f"// {f}\n" + "".join(f"extern const OpDef {n};\n" for n in names) for f, names in ops)
    return head + body + "\n}  // namespace qrt\n"


def render_registry(text, ops):
    start_tag = "  static const std::vector<const OpDef*> kOps = {\n"
    start = text.index(start_tag) + len(start_tag)
    end = text.index("  };\n  return kOps;")
    body = "".join(f"      // ops/{f}\n" + "".join(f"      &{n},\n" for n in names) for f, names in ops)
    return text[:start] + body + text[end:]


def main():
    check = "--check" in sys.argv[1:]
    ops = defined_ops()
    stale = []
    for rel, render in (("ops/ops.h", render_header), ("ops/registry.cc", render_registry)):
        path = os.path.join(ROOT, rel)
        old = open(path).read()
        new = render(old, ops)
        if new != old:
            stale.append(rel)
            if not check:
                open(path, "w").write(new)
    if check and stale:
        print("out of date (run tools/update_registry.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
