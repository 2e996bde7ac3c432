"""Results of `sensim batch`: DIR/manifest.jsonl, one JSON record per run."""
import json
import os


def manifest(path):
    """The records of a batch as a list of dicts, in the file's order. `path` is the batch's
    --out folder (its manifest.jsonl) or a manifest file (a shard's manifest-I-of-N.jsonl)."""
    if os.path.isdir(path):
        path = os.path.join(path, "manifest.jsonl")
    runs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not a JSON record: {e.msg}") from None
            if not isinstance(rec, dict) or "id" not in rec:
                raise ValueError(f"{path}:{n}: a record is an object with an 'id'")
            runs.append(rec)
    return runs


def run_outputs(out_dir, record):
    """The paths of one run's outputs: OUT/<run id>/<path> for each of its `outputs`."""
    return [os.path.join(out_dir, record["id"], o["path"]) for o in record.get("outputs") or []]
