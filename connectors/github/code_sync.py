"""Reads the code files of a repository's default branch through PyGithub, downloading only changed blobs."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import requests

from briefing.model import JSON, Batch, Failure, RawRecord
from connectors.github.client import raw_json
from connectors.github.code import MAX_FILE_BYTES, RECORD_KIND, CodeState, decode_blob, file_key, is_binary, wanted
from connectors.github.cursor import BATCH_SIZE, RepoState, Run
from connectors.http import is_fatal

log = logging.getLogger(__name__)


def fetch_code(
    repo: Any,
    full_name: str,
    run: Run,
    *,
    code_paths: list[str],
    full: bool,
    name: str,
    translate: Callable[[Exception, str], Exception],
) -> Iterator[Batch]:
    """Code files of the default branch: nothing but a 304 when the branch ref is unchanged.

    Blobs are downloaded only for paths whose blob sha changed; files gone from the branch (or from the
    configured paths) are deleted; binaries and files over MAX_FILE_BYTES are skipped, remembered by sha.
    """
    from github import GithubException

    old = run.code.get(full_name, CodeState())
    if not code_paths:  # code_paths were removed from the configuration: drop what was stored
        run.code.pop(full_name, None)
        yield Batch(deleted=[file_key(full_name, p) for p in old.files], cursor=run.cursor())
        return
    same_paths = old.paths == code_paths and not full
    meta = run.meta.get(full_name, RepoState())
    branch = meta.default_branch or "main"
    ref = repo.get_git_ref(f"heads/{branch}")
    etag = old.ref_etag if same_paths else ""
    try:
        if not ref.update(additional_headers={"If-None-Match": etag} if etag else None):
            return  # 304: the branch still points at the commit read last time
    except GithubException as exc:
        if exc.status not in (404, 409):  # 409: an empty repository
            raise
        failure = Failure(f"{full_name}:", f"no branch {branch} to read code from")
        yield Batch(failures=[failure], cursor=run.cursor())
        return
    head = ref.object.sha
    if same_paths and head == old.head:
        run.code[full_name] = old.model_copy(update={"ref_etag": ref.etag or ""})
        yield Batch(cursor=run.cursor())
        return
    committed_at = raw_json(repo.get_git_commit(head))["committer"]["date"]
    tree = raw_json(repo.get_git_tree(head, recursive=True))
    listed = {
        str(e["path"]): e
        for e in tree.get("tree") or []
        if e.get("type") == "blob" and e.get("mode") != "120000" and wanted(str(e["path"]), code_paths)
    }
    files = {p: sha for p, sha in old.files.items() if p in listed}
    batch = Batch()
    downloaded: dict[str, bytes] = {}
    for path, entry in sorted(listed.items()):
        sha, key = str(entry["sha"]), file_key(full_name, path)
        if files.get(path) == sha:
            continue
        try:
            if int(entry.get("size") or 0) > MAX_FILE_BYTES:
                log.info("%s: skipped %s (%s bytes)", name, key, entry.get("size"))
                content = None
            else:
                if sha not in downloaded:
                    downloaded[sha] = decode_blob(raw_json(repo.get_git_blob(sha)))
                content = None if is_binary(downloaded[sha]) else downloaded[sha]
        except (GithubException, requests.RequestException) as exc:
            error = translate(exc, key)
            if is_fatal(error):
                raise error from None
            batch.failures.append(Failure(key, str(error)))
            continue
        except ValueError as exc:  # bad base64
            batch.failures.append(Failure(key, f"malformed GitHub blob: {exc}"))
            continue
        files[path] = sha
        if content is None:
            batch.deleted.append(key)  # an earlier text version may be cached
            continue
        data: JSON = {
            "repo": full_name,
            "path": path,
            "blob": sha,
            "branch": branch,
            "commit": head,
            "committed_at": committed_at,
            "html_url": meta.html_url,
            "text": content.decode("utf-8", "replace"),
        }
        batch.records.append(RawRecord(key=key, kind=RECORD_KIND, data=data))
        if len(batch.records) >= BATCH_SIZE:
            # Not yet listed in full: no head or ETag, so an interrupted run lists the tree again.
            run.code[full_name] = CodeState(paths=code_paths, files=dict(files))
            batch.cursor = run.cursor()
            yield batch
            batch = Batch()
    if tree.get("truncated"):
        # GitHub cut the listing short: files not listed may still exist, so nothing is deleted.
        files = {**old.files, **files}
        batch.failures.append(Failure(f"{full_name}:", "tree too large for one listing; some files not read"))
    else:
        batch.deleted.extend(file_key(full_name, p) for p in old.files if p not in listed)
    complete = not batch.failures
    run.code[full_name] = CodeState(
        paths=code_paths,
        head=head if complete else "",
        ref_etag=(ref.etag or "") if complete else "",
        files=files,
    )
    batch.cursor = run.cursor()
    yield batch
