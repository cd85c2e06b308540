"""Fetch a pinned sdist from PyPI into the cache, check its sha256, and unpack it safely."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

INDEX = os.environ.get("REALWORLD_PYPI", "https://pypi.org/pypi")
TIMEOUT_S = 60


class FetchError(RuntimeError):
    """An sdist could not be downloaded, or is not the one the table pins."""


def cache_root() -> Path:
    """`$REALWORLD_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/tensor-sdk/realworld`."""
    if env := os.environ.get("REALWORLD_CACHE"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tensor-sdk" / "realworld"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _index_json(url: str) -> dict:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as r:
            return json.load(r)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return {}
        raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}") from exc


def _sdist_url(name: str, version: str, filename: str) -> str:
    # pip download would run the sdist's setup.py (which imports torch) to read its metadata;
    # the index's JSON names the file without running anything. The release's own page is
    # tried first, then the project's page (its "releases" list every version's files): an
    # index may serve only the latter.
    release_url, project_url = f"{INDEX}/{name}/{version}/json", f"{INDEX}/{name}/json"
    candidates = [(release_url, _index_json(release_url).get("urls", []))]
    if not candidates[0][1]:
        project = _index_json(project_url)
        candidates.append((project_url, project.get("releases", {}).get(version, [])))
    for meta_url, entries in candidates:
        for entry in entries:
            if entry.get("filename") == filename:
                return urllib.parse.urljoin(meta_url, entry["url"])
    raise FetchError(f"{name}=={version}: the index lists no file {filename}")


def download(name: str, version: str, filename: str, sha256: str) -> Path:
    """The sdist's path in the cache, downloaded unless a copy with the pinned hash is there."""
    folder = cache_root() / "sdists"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / filename
    if target.is_file() and sha256_of(target) == sha256:
        return target
    url = _sdist_url(name, version, filename)
    partial = target.with_suffix(target.suffix + ".part")
    with urllib.request.urlopen(url, timeout=TIMEOUT_S) as r, open(partial, "wb") as f:
        shutil.copyfileobj(r, f)
    got = sha256_of(partial)
    if got != sha256:
        partial.unlink()
        raise FetchError(f"{filename}: sha256 {got} is not the pinned {sha256}")
    os.replace(partial, target)
    return target


def _safe_name(root: Path, name: str) -> Path:
    """`root/name`, refusing absolute names and any that leave root."""
    if not name or name.startswith(("/", "\\")) or "\\" in name:
        raise FetchError(f"archive member {name!r} has an absolute or odd path")
    parts = Path(name).parts
    if any(p in ("..", "") for p in parts):
        raise FetchError(f"archive member {name!r} leaves the folder")
    target = (root / name).resolve()
    if target != root and root not in target.parents:
        raise FetchError(f"archive member {name!r} leaves the folder")
    return target


def _extract_tar(archive: Path, root: Path) -> None:
    with tarfile.open(archive) as tar:
        for member in tar:
            target = _safe_name(root, member.name)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                target.parent.mkdir(parents=True, exist_ok=True)
                src = tar.extractfile(member)
                assert src is not None
                with src, open(target, "wb") as f:
                    shutil.copyfileobj(src, f)
                target.chmod(0o644)
            # links, devices and fifos are skipped: nothing the ports need, and a link
            # could point out of the folder.


def _extract_zip(archive: Path, root: Path) -> None:
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            target = _safe_name(root, info.filename.rstrip("/"))
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                continue  # a symbolic link
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(target, "wb") as f:
                shutil.copyfileobj(src, f)


def unpack(archive: Path, sha256: str) -> Path:
    """The archive's top folder, unpacked once under the cache (keyed by its hash)."""
    root = cache_root() / "src" / sha256[:16]
    done = root / ".unpacked"
    if not done.exists():
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        resolved = root.resolve()
        if archive.name.endswith(".zip"):
            _extract_zip(archive, resolved)
        else:
            _extract_tar(archive, resolved)
        done.touch()
    tops = [p for p in root.iterdir() if p.is_dir()]
    return tops[0] if len(tops) == 1 else root
