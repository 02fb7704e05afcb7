"""python3 -m torch_npu.tools.migrate SRC OUT [--rules extra.json]: converts CUDA scripts to the NPU.

SRC is a Python file or a directory (every *.py under it is converted; other files are copied); OUT is
the file or directory to write. The tool writes two reports next to OUT (or into --report DIR):
- migration_report.csv: one row per change: file, line, original line, converted line, rule;
- unsupported_apis.csv: every CUDA-only API it left alone: file, line, API, reason.

Note [Migration rules]
The rules live in torch_npu/tools/migration_rules.json; --rules files add to them. The source is
rewritten token by token (Python's tokenize), so formatting and comments stay as they are and only the
matched tokens change:
- "unsupported": a dotted name that starts with one of these APIs (torch.cuda.nvtx, ...) is reported,
  with its reason, and left unchanged;
- "api": a dotted name that starts with `from` (whole components: torch.cuda, torch.cuda.amp) gets
  that prefix replaced by `to`; the longest matching rule wins;
- "attribute": an attribute (`x.cuda(...)`, `x.is_cuda`) renamed wherever it follows a dot, not only
  after a known name; `only_calls` restricts it to calls;
- "string": a string literal (f-strings included) whose text matches `pattern` gets the match
  replaced ("cuda:0" -> "npu:0", "nccl" -> "hccl");
- "argument": a call of `call` (the last name before its parenthesis) that passes the keyword
  `if_keyword` and not `unless_keyword` gets `add` as a last argument
  (DataLoader(..., pin_memory=True) also pins for the NPU: pin_memory_device="npu");
- "import": a file that imports `when` and not yet what `add` imports gets `add` after its first
  import of `when`.
The rules only turn CUDA spellings into NPU ones, and no NPU spelling matches a rule, so a second run
changes nothing.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import sys
import tokenize

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "migration_rules.json")
_KINDS = ("unsupported", "api", "attribute", "string", "argument", "import")


def load_rules(extra=()):
    """The built-in rules, extended by each file of `extra`."""
    rules = {kind: [] for kind in _KINDS}
    for path in (RULES, *extra):
        with open(path) as f:
            loaded = json.load(f)
        unknown = set(loaded) - set(_KINDS) - {"comment"}
        if unknown:
            raise ValueError(f"{path}: unknown rule kinds {sorted(unknown)}; known: {', '.join(_KINDS)}")
        for kind in _KINDS:
            rules[kind].extend(loaded.get(kind, []))
    rules["api"].sort(key=lambda r: -len(r["from"]))  # the longest prefix wins
    return rules


class _Edit:
    def __init__(self, start, end, text, rule):
        self.start, self.end, self.text, self.rule = start, end, text, rule


def _dotted_chains(tokens):
    """(first index, [indices of the NAME tokens]) of every dotted name a.b.c not preceded by a dot."""
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == tokenize.NAME and not (i > 0 and tokens[i - 1].string == "."):
            names = [i]
            j = i + 1
            while j + 1 < len(tokens) and tokens[j].string == "." and tokens[j + 1].type == tokenize.NAME:
                names.append(j + 1)
                j += 2
            yield names
            i = j
        else:
            i += 1


def _prefix_match(components, dotted):
    parts = dotted.split(".")
    return len(parts) if components[:len(parts)] == parts else 0


def _string_body(token_text):
    """(prefix and quote, body, closing quote) of a one-line string literal, or None."""
    m = re.match(r"^([rRbBuUfF]*)('''|\"\"\"|'|\")(.*)(\2)$", token_text, re.S)
    return (m.group(1) + m.group(2), m.group(3), m.group(4)) if m else None


def convert_source(source, rules, filename="<string>"):
    """(converted source, changes, unsupported): changes are (line, rule name), unsupported (line, api,
    reason)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits, unsupported, consumed = [], [], set()
    for names in _dotted_chains(tokens):
        components = [tokens[k].string for k in names]
        blocked = next((r for r in rules["unsupported"] if _prefix_match(components, r["api"])), None)
        if blocked:
            unsupported.append((tokens[names[0]].start[0], ".".join(components), blocked["reason"]))
            consumed.update(names)
            continue
        for rule in rules["api"]:
            n = _prefix_match(components, rule["from"])
            if n:
                edits.append(_Edit(tokens[names[0]].start, tokens[names[n - 1]].end, rule["to"],
                                   f"api {rule['from']} -> {rule['to']}"))
                consumed.update(names[:n])
                break
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.NAME and i > 0 and tokens[i - 1].string == "." and i not in consumed:
            for rule in rules["attribute"]:
                if tok.string != rule["from"]:
                    continue
                if rule.get("only_calls") and not (i + 1 < len(tokens) and tokens[i + 1].string == "("):
                    continue
                edits.append(_Edit(tok.start, tok.end, rule["to"], f"attribute .{rule['from']} -> .{rule['to']}"))
                break
        elif tok.type == tokenize.STRING:
            parts = _string_body(tok.string)
            if parts is None:
                continue
            opening, body, closing = parts
            for rule in rules["string"]:
                new_body, n = re.subn(rule["pattern"], rule["to"], body, count=1)
                if n:
                    edits.append(_Edit(tok.start, tok.end, opening + new_body + closing,
                                       rule.get("name", f"string {rule['pattern']} -> {rule['to']}")))
                    break
    edits += _argument_edits(tokens, rules)
    edits += _import_edits(tokens, rules)
    lines = source.splitlines(keepends=True)
    converted = list(lines)
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        (r0, c0), (r1, c1) = edit.start, edit.end
        if edit.start == (0, 0):  # an added line (import rule): below
            continue
        first, last = converted[r0 - 1], converted[r1 - 1]
        converted[r0 - 1:r1] = [first[:c0] + edit.text + last[c1:]]
        if r1 > r0:
            converted[r0:r0] = [""] * (r1 - r0)  # keep the line numbering of later edits
    for edit in edits:
        if edit.start == (0, 0):
            row = edit.end[0]  # insert after this line
            converted[row - 1] = converted[row - 1] + edit.text
    changes = [(e.start[0] if e.start != (0, 0) else e.end[0], e.rule) for e in edits]
    return "".join(converted), sorted(changes), unsupported


def _call_arguments(tokens, open_index):
    """(keywords passed at the top level, index of the last argument token) of the call whose '(' is
    tokens[open_index]."""
    depth, keywords, last = 0, set(), None
    for k in range(open_index, len(tokens)):
        tok = tokens[k]
        if tok.string in "([{" and tok.type == tokenize.OP:
            depth += 1
        elif tok.string in ")]}" and tok.type == tokenize.OP:
            depth -= 1
            if depth == 0:
                return keywords, last
        if depth == 1 and tok.type == tokenize.NAME and k + 1 < len(tokens) and tokens[k + 1].string == "=":
            keywords.add(tok.string)
        if k > open_index and tok.type not in (tokenize.NL, tokenize.COMMENT) and tok.string != "," or depth > 1:
            last = k
    return keywords, None


def _argument_edits(tokens, rules):
    edits = []
    for i, tok in enumerate(tokens[:-1]):
        if tok.type != tokenize.NAME or tokens[i + 1].string != "(":
            continue
        for rule in rules["argument"]:
            if tok.string != rule["call"]:
                continue
            keywords, last = _call_arguments(tokens, i + 1)
            if last is not None and rule["if_keyword"] in keywords and rule.get("unless_keyword") not in keywords:
                edits.append(_Edit(tokens[last].end, tokens[last].end, ", " + rule["add"],
                                   f"argument {rule['call']}(..., {rule['add']})"))
    return edits


def _statement_starts(tokens):
    """Indices of the tokens that begin a logical line."""
    starters = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT)
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.NAME and (i == 0 or tokens[i - 1].type in starters):
            yield i


def _import_edits(tokens, rules):
    edits = []
    for rule in rules["import"]:
        added = rule["add"].split()[-1]
        imported, insert_after = set(), None
        for i in _statement_starts(tokens):
            keyword = tokens[i].string
            if keyword not in ("import", "from"):
                continue
            j, modules = i + 1, []
            while j < len(tokens) and tokens[j].type != tokenize.NEWLINE:
                after = tokens[j - 1].string
                if tokens[j].type == tokenize.NAME and (j == i + 1 or (keyword == "import" and after == ",")):
                    modules.append(tokens[j].string)
                j += 1
            imported.update(modules)
            if rule["when"] in modules and insert_after is None and j < len(tokens):
                insert_after = tokens[j].start[0]  # the statement's last line
                indent = tokens[i].line[:tokens[i].start[1]]  # inside a try: block, as indented
        if insert_after is not None and added not in imported:
            edits.append(_Edit((0, 0), (insert_after, 0), indent + rule["add"] + "\n", f"import {rule['add']}"))
    return edits


def _line(lines, number):
    return lines[number - 1].strip() if 0 < number <= len(lines) else ""


def convert_file(src, out, rules, changes_rows, unsupported_rows, label):
    with open(src) as f:
        source = f.read()
    converted, changes, unsupported = convert_source(source, rules, src)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write(converted)
    before, after = source.splitlines(), converted.splitlines()
    added_at = sorted(line for line, rule in changes if rule.startswith("import "))
    for line, rule in changes:
        shift = sum(1 for a in added_at if a < line)  # lines the import rule added before this change
        new_line = line + shift + (1 if rule.startswith("import ") else 0)
        original = "" if rule.startswith("import ") else _line(before, line)
        changes_rows.append([label, line, original, _line(after, new_line), rule])
    for line, api, reason in unsupported:
        unsupported_rows.append([label, line, api, reason])


def migrate(src, out, extra_rules=(), report_dir=None):
    """Converts SRC (file or directory) into OUT; writes the two reports; returns their paths."""
    rules = load_rules(extra_rules)
    changes_rows, unsupported_rows = [], []
    if os.path.isdir(src):
        for root, _, files in os.walk(src):
            for name in sorted(files):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, src)
                target = os.path.join(out, rel)
                if name.endswith(".py"):
                    convert_file(path, target, rules, changes_rows, unsupported_rows, rel)
                else:
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copy2(path, target)
        report_dir = report_dir or out
    elif os.path.isfile(src):
        convert_file(src, out, rules, changes_rows, unsupported_rows, os.path.basename(src))
        report_dir = report_dir or os.path.dirname(os.path.abspath(out))
    else:
        raise FileNotFoundError(f"torch_npu.tools.migrate: {src} is neither a file nor a directory")
    os.makedirs(report_dir, exist_ok=True)
    reports = (os.path.join(report_dir, "migration_report.csv"), os.path.join(report_dir, "unsupported_apis.csv"))
    for path, header, rows in ((reports[0], ["file", "line", "original", "converted", "rule"], changes_rows),
                               (reports[1], ["file", "line", "api", "reason"], unsupported_rows)):
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows(rows)
    return reports, len(changes_rows), len(unsupported_rows)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m torch_npu.tools.migrate", description=__doc__.splitlines()[0])
    parser.add_argument("src", help="a CUDA script or a directory of them")
    parser.add_argument("out", help="the converted file or directory")
    parser.add_argument("--rules", action="append", default=[], help="a JSON rule file to add (repeatable)")
    parser.add_argument("--report", help="directory for the reports (default: next to OUT)")
    args = parser.parse_args(argv)
    reports, n_changes, n_unsupported = migrate(args.src, args.out, args.rules, args.report)
    print(f"{n_changes} change(s), {n_unsupported} unsupported API use(s); reports: {reports[0]}, {reports[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
