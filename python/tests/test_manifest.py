"""sensim.manifest on a real batch: two runs that work and one that is refused."""
import hashlib
import os

import pytest

import sensim


def test_manifest(batch_dir):
    runs = sensim.manifest(batch_dir)
    assert [r["id"] for r in runs] == ["speed-0", "speed-1", "broken"]
    assert [r["status"] for r in runs] == ["ok", "ok", "bad_input"]
    assert "throttle" in runs[2]["error"] and runs[2]["exit"] == 2
    for r in runs[:2]:
        paths = sensim.run_outputs(batch_dir, r)
        # the actors stream every run keeps, the collision stream and the run's note (run.json:
        # its scene, map and seed)
        assert len(paths) == 3 and paths[0].endswith("actors.msgpack") and paths[2].endswith("run.json")
        for p, o in zip(paths, r["outputs"]):
            data = open(p, "rb").read()
            assert len(data) == o["bytes"] and hashlib.sha256(data).hexdigest() == o["sha256"]
        assert len(sensim.collisions(paths[1])) >= 1
    assert sensim.manifest(os.path.join(batch_dir, "manifest.jsonl")) == runs


def test_bad_manifest(tmp_path):
    bad = tmp_path / "manifest.jsonl"
    bad.write_text('{"id": "a"}\n{oops\n')
    with pytest.raises(ValueError, match=r"manifest.jsonl:2: not a JSON record"):
        sensim.manifest(str(tmp_path))
