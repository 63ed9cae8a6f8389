"""Loading docs/perf/data/*.json and their metadata (meta.json), and the 'Measured on' line."""
import json
from pathlib import Path

from .common import DATA, Error, rel


class Data:
    """The JSON files of docs/perf/data and their metadata, loaded on first use."""

    def __init__(self, directory=DATA):
        self.dir = Path(directory)
        self._cache = {}
        meta_path = self.dir / "meta.json"
        if not meta_path.exists():
            raise Error(f"{rel(meta_path)} is missing (see `perf_docs.py import`)")
        self.meta = json.loads(meta_path.read_text(encoding="utf-8")).get("files", {})

    def get(self, name):
        if name not in self._cache:
            path = self.dir / name
            if not path.exists():
                raise Error(f"{rel(path)} is missing")
            self._cache[name] = json.loads(path.read_text(encoding="utf-8"))
        return self._cache[name]

    def info(self, name):
        m = self.meta.get(name)
        if not m:
            raise Error(f"{rel(self.dir / 'meta.json')} has no entry for {name}")
        for key in ("gpu", "date", "commit", "command"):
            if not m.get(key):
                raise Error(f"{rel(self.dir / 'meta.json')}: {name} lacks '{key}'")
        return m


def measured_line(data, names, extra=""):
    """'Measured on GPU, date, commit, command' for the files, grouped by run."""
    groups = []
    for name in names:
        m = data.info(name)
        key = (m["gpu"], m["date"], m["commit"], m["command"])
        for g in groups:
            if g[0] == key:
                g[1].append(name)
                break
        else:
            groups.append((key, [name]))
    parts = []
    for (gpu, date, commit, command), files in groups:
        parts.append(f"{gpu}, {date}, commit `{commit[:7]}`, command `{command}` "
                     f"({', '.join(files)})")
    text = "Measured on " + "; ".join(parts)
    if extra:
        text += "; " + extra
    return "*" + text + ".*"


def short_gpu(gpu):
    return gpu.split(" (")[0]
