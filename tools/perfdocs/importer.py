"""`perf_docs.py import DIR --commit SHA`: copy a benchmark run's JSON into docs/perf/data
and record its metadata in meta.json."""
import datetime
import json
import re
import shutil
from pathlib import Path

from .common import DATA, DATA_FILES, META, Error, rel


def cmd_import(args):
    src = Path(args.dir)
    info = {}
    run_info = src / "run_info.json"
    if run_info.exists():
        info = json.loads(run_info.read_text(encoding="utf-8"))
    commit = args.commit or info.get("commit", "")
    if not re.fullmatch(r"[0-9a-f]{7,40}", commit or ""):
        raise Error("give the commit the run was built from: --commit SHA (the full 40 hex "
                    f"digits preferred; {run_info.name} in DIR had none)")
    date = args.date or info.get("date") or datetime.date.today().isoformat()
    gpu = args.gpu or info.get("gpu", "")
    if not gpu and info.get("nvidia_smi"):
        parts = [p.strip() for p in info["nvidia_smi"].split(",")]
        gpu = parts[0] + (f" ({parts[1]}, driver {parts[2]})" if len(parts) >= 3 else "")
    meta = {"schema": "prism.perf_meta/1", "files": {}}
    if META.exists():
        meta = json.loads(META.read_text(encoding="utf-8"))
    DATA.mkdir(parents=True, exist_ok=True)
    copied = []
    for name, default_command in DATA_FILES.items():
        path = src / name
        if not path.exists():
            continue
        json.loads(path.read_text(encoding="utf-8"))  # must parse
        shutil.copyfile(path, DATA / name)
        file_gpu = gpu
        if not file_gpu:
            body = json.loads(path.read_text(encoding="utf-8"))
            file_gpu = body.get("gpu") or next(
                (r.get("device") for r in body.get("results", []) if r.get("device")), "")
        if not file_gpu:
            raise Error(f"no GPU name for {name}: pass --gpu")
        meta["files"][name] = {"gpu": file_gpu, "date": date, "commit": commit,
                               "command": args.command or info.get("command")
                               or default_command}
        copied.append(name)
    if not copied:
        raise Error(f"no benchmark JSON in {src} (looked for {', '.join(DATA_FILES)})")
    META.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"copied {', '.join(copied)} into {rel(DATA)}; metadata in {rel(META)}")
    print("now run: python3 tools/perf_docs.py")
    return 0
