"""The repository's house rules, checked on the source tree (no NPU needed).

docs/architecture.md describes the layout these tests hold in place:
- op families are folders with the same names on both sides of the seam (csrc/aten/<family>/ and
  the simulator's src/ops/<family>/), and no source folder grows into a hall of more than 25 sources;
- file names say what they hold (no More/Ext/Misc);
- the layers of the simulator and of the plugin only include downwards;
- every `Note [X]` a comment points at is defined somewhere.
"""
import collections
import os
import re
import subprocess

import pytest

from conftest import REPO_ROOT as REPO

SIM_SRC = os.path.join("third_party", "ascend_sim", "src")

# Bottom to top: a folder may include its own headers and those of the folders before it.
SIM_LAYERS = ["common", "chip", "aicore", "format", "kernel", "ops", "cost", "runtime", "ascendc", "hccl"]
PLUGIN_LAYERS = ["core", "framework", "aten", "distributed", "python"]

SOURCE_SUFFIXES = (".h", ".cpp", ".py")
MAX_SOURCES_PER_FOLDER = 25


def _tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=REPO, check=True, capture_output=True, text=True).stdout
    return [f for f in out.split("\n") if f]


@pytest.fixture(scope="module")
def tracked():
    if not os.path.isdir(os.path.join(REPO, ".git")):
        pytest.skip("not a git checkout")
    return _tracked_files()


def _read(rel):
    with open(os.path.join(REPO, rel), encoding="utf-8") as f:
        return f.read()


def _family_folders(root):
    return {d for d in os.listdir(os.path.join(REPO, root)) if os.path.isdir(os.path.join(REPO, root, d))}


def test_op_families_are_the_same_on_both_sides_of_the_seam():
    plugin = _family_folders("csrc/aten") - {"common"}  # common/: the plugin's support code, not a family
    simulator = _family_folders(os.path.join(SIM_SRC, "ops"))
    assert plugin == simulator, (f"only in csrc/aten: {sorted(plugin - simulator)}; "
                                 f"only in the simulator's src/ops: {sorted(simulator - plugin)}")
    assert not [f for f in os.listdir(os.path.join(REPO, "csrc/aten")) if f.endswith((".h", ".cpp"))], \
        "csrc/aten/ holds only family folders: put the file into its family (or common/)"


def test_no_source_folder_is_a_hall(tracked):
    # A .h/.cpp pair counts once: the number of distinct stems per folder.
    stems = collections.defaultdict(set)
    for f in tracked:
        if f.endswith(SOURCE_SUFFIXES):
            stems[os.path.dirname(f)].add(os.path.splitext(os.path.basename(f))[0])
    halls = {d: len(s) for d, s in stems.items() if len(s) > MAX_SOURCES_PER_FOLDER}
    assert not halls, f"folders with more than {MAX_SOURCES_PER_FOLDER} sources: {halls}"


def _name_parts(filename):
    stem = os.path.splitext(filename)[0]
    return [p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", stem)]


def test_file_names_say_what_they_hold(tracked):
    vague = [f for f in tracked if f.endswith(SOURCE_SUFFIXES)
             and {"more", "ext", "misc"} & set(_name_parts(os.path.basename(f)))]
    assert not vague, f"name these files for what they hold: {vague}"


def _includes(rel):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', _read(rel), re.M)


def _upward_includes(tracked, root, layers, strip_prefix=""):
    bad = []
    for f in tracked:
        if not f.startswith(root + "/") or not f.endswith((".h", ".cpp")):
            continue
        layer = f[len(root) + 1:].split("/")[0]
        if layer not in layers:
            continue
        for inc in _includes(f):
            if strip_prefix:
                if not inc.startswith(strip_prefix):
                    continue
                inc = inc[len(strip_prefix):]
            target = inc.split("/")[0]
            if target in layers and layers.index(target) > layers.index(layer):
                bad.append(f"{f} includes {inc}")
    return bad


def test_simulator_layers_include_only_downwards(tracked):
    folders = {d for d in _family_folders(SIM_SRC)}
    assert folders == set(SIM_LAYERS), f"a new simulator folder needs a place in SIM_LAYERS: {folders}"
    assert not _upward_includes(tracked, SIM_SRC, SIM_LAYERS)


def test_plugin_layers_include_only_downwards(tracked):
    assert not _upward_includes(tracked, "csrc", PLUGIN_LAYERS, strip_prefix="csrc/")


def test_the_checks_see_an_upward_include(tracked, monkeypatch):
    # The layer check itself can fail: a cost-model file that included the runtime would be caught.
    real = _includes
    monkeypatch.setitem(globals(), "_includes",
                        lambda rel: real(rel) + (["runtime/stream.h"] if rel.endswith("cost/cost_model.h") else []))
    assert _upward_includes(tracked, SIM_SRC, SIM_LAYERS) == [f"{SIM_SRC}/cost/cost_model.h includes runtime/stream.h"]


# Note [Notes stay true]
# A `Note [X]` is defined where a comment line (or a docstring line) starts with it, or where it is
# followed by a colon ("... Note [X]: ..."), unless what follows points elsewhere ("(in foo.h)",
# "in foo.cpp", "see ..."). Every other occurrence is a reference and needs a definition somewhere
# in the repository, so a renamed or deleted Note cannot leave its readers pointing at nothing.
_NOTE = re.compile(r"Note \[([^\]]+)\]")
_LINE_START = re.compile(r"^\s*(?://+|#+|\*|\"\"\"|>)?\s*$")
_POINTER = re.compile(r"^\s*(\(|in |see |,|\.|is in |lives )")


def _notes(tracked):
    defined, referenced = set(), collections.defaultdict(list)
    for f in tracked:
        try:
            text = _read(f)
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue
        for number, line in enumerate(text.split("\n"), 1):
            for m in _NOTE.finditer(line):
                rest = line[m.end():]
                at_start = _LINE_START.match(line[:m.start()]) and not _POINTER.match(rest)
                if at_start or rest.startswith(":"):
                    defined.add(m.group(1))
                else:
                    referenced[m.group(1)].append(f"{f}:{number}")
    return defined, referenced


def test_every_referenced_note_is_defined(tracked):
    defined, referenced = _notes(tracked)
    dangling = {name: places for name, places in referenced.items() if name not in defined}
    assert not dangling, f"Notes referenced but defined nowhere: {dangling}"
    assert len(defined) > 150  # the scan finds the project's Notes at all


def test_one_path_to_the_queue(tracked):
    # Note [One path to the queue] (csrc/framework/CopyCommand.h): ops and copies reach the task queue
    # only through the framework's two commands; the runtime layer, the collectives and the Python
    # bindings (queue settings and statistics) are the other users.
    allowed = ("csrc/core/", "csrc/distributed/", "csrc/python/",
               "csrc/framework/OpCommand.cpp", "csrc/framework/CopyCommand.cpp")
    users = [f for f in tracked if f.startswith("csrc/") and f.endswith((".h", ".cpp"))
             and "csrc/core/TaskQueue.h" in _includes(f) and not f.startswith(allowed)]
    assert not users, f"these reach the task queue around OpCommand/CopyCommand: {users}"
