"""Local mailboxes (mbox, Maildir, .eml folders) through the real pipeline: MIME, threads, cleaning, deletions."""

from __future__ import annotations

import mailbox
import os
from datetime import UTC, datetime, timedelta
from email.header import Header
from email.message import EmailMessage, Message
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime
from pathlib import Path

import pytest

from briefing.model import ChunkLimits, Document
from chunkers.email import chunk_thread
from connectors.email.local import LocalMailConnector
from connectors.email.mime import clean_body, parse
from tests.harness import SourceRunner

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
FOOTER = (
    "\n_______________________________________________\nteam-dev mailing list\nteam-dev@lists.example.org\n"
    "https://lists.example.org/mailman/listinfo/team-dev\n"
)


def message(
    mid: str,
    subject: str,
    body: str,
    *,
    sender: str = "Dana Levi <dana@example.com>",
    to: str = "team-dev@lists.example.org",
    minutes: int = 0,
    reply_to: str | None = None,
    references: str | None = None,
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{mid}>"
    msg["Date"] = format_datetime(T0 + timedelta(minutes=minutes))
    msg["List-Id"] = "<team-dev.lists.example.org>"
    if reply_to:
        msg["In-Reply-To"] = f"<{reply_to}>"
        msg["References"] = references or f"<{reply_to}>"
    msg.set_content(body)
    return msg


def write_mbox(path: Path, messages: list[Message]) -> None:
    box = mailbox.mbox(path)
    for msg in messages:
        box.add(msg)
    box.flush()
    box.close()


def run(path: Path) -> tuple[SourceRunner, LocalMailConnector]:
    connector = LocalMailConnector("inbox", path)
    runner = SourceRunner(connector)
    runner.collect()
    return runner, connector


def documents(runner: SourceRunner) -> dict[str, Document]:
    return {d.key: d for d in runner.normalise().documents}


def test_thread_with_reply_to_missing_parent_and_cleaned_reply(tmp_path: Path) -> None:
    review = (
        "On Mon, 4 May 2026, Dana Levi wrote:\n> We retry the webhook three times.\n> +\tretries = 3\n\n"
        "Please make the retry count configurable.\n\n> The rest is unchanged.\n\nThanks,\nSam\n-- \nSam Ortiz\n"
        "Payments team" + FOOTER
    )
    box = tmp_path / "archive.mbox"
    write_mbox(
        box,
        [
            message("root@x", "Webhook retries", "We retry the webhook three times." + FOOTER),
            message(
                "r1@x",
                "Re: Webhook retries",
                review,
                sender="Sam Ortiz <sam@example.com>",
                minutes=30,
                reply_to="root@x",
            ),
            # Both reply to a message older than the mailbox: they are still one thread.
            message("o1@x", "Re: Q2 budget", "Agreed on the budget.", minutes=60, reply_to="old@x"),
            message(
                "o2@x",
                "Re: Q2 budget",
                "Budget signed off.",
                minutes=90,
                reply_to="old@x",
                sender="Priya Raman <priya@example.com>",
            ),
        ],
    )
    runner, _ = run(box)
    assert set(runner.cache) == {"root@x", "r1@x", "o1@x", "o2@x"}
    docs = documents(runner)
    assert set(docs) == {"email:root@x", "email:o1@x"}
    assert [i.ref for i in docs["email:o1@x"].items] == ["email:o1@x", "email:o2@x"]
    reply = docs["email:root@x"].items[1]
    assert "configurable" in reply.text
    assert "> +\tretries = 3" in reply.text  # the line the reviewer answered stays as context
    assert "The rest is unchanged" not in reply.text  # quoted text nobody answered goes
    assert "Dana Levi wrote" not in reply.text and "Payments team" not in reply.text
    assert "mailing list" not in reply.text and "listinfo" not in reply.text
    # The raw cache keeps everything.
    assert "Payments team" in parse(runner.cache["r1@x"].data["raw"].encode()).text
    assert reply.url == "mid:r1@x" and docs["email:root@x"].container == "team-dev"


def test_mboxrd_from_lines_are_unescaped(tmp_path: Path) -> None:
    box = tmp_path / "a.mbox"
    box.write_bytes(
        b"From dana@example.com Mon May  4 09:00:00 2026\n"
        b"From: Dana <dana@example.com>\nSubject: Plan\nMessage-ID: <m1@x>\nDate: Mon, 4 May 2026 09:00:00 +0000\n\n"
        b"Line one.\n>From looking at the graphs, p99 doubled.\n>>From here it quotes.\n\n"
    )
    runner, _ = run(box)
    item = documents(runner)["email:m1@x"].items[0]
    assert "From looking at the graphs, p99 doubled." in item.text
    assert ">From here" not in item.text  # the second line was `>From here`, a quote: cleaned away


def test_charsets_encodings_html_and_attachments(tmp_path: Path) -> None:
    chinese = MIMEText("部署在周五完成。", "plain", "gb2312")
    chinese["Subject"] = Header("部署状态", "gb2312").encode()
    chinese["From"] = str(Header("李雷", "utf-8")) + " <li@example.com>"
    chinese["Message-ID"] = "<cn@x>"
    chinese["Date"] = format_datetime(T0)

    # Quoted-printable windows-1252 with an encoded subject and sender, written as a mail client would.
    western = (
        b"From: =?windows-1252?q?Ren=E9?= <rene@example.com>\nSubject: =?windows-1252?q?Caf=E9_plans?=\n"
        b"Message-ID: <w1252@x>\nDate: Mon, 4 May 2026 09:05:00 +0000\nMIME-Version: 1.0\n"
        b"Content-Type: text/plain; charset=windows-1252\nContent-Transfer-Encoding: quoted-printable\n\n"
        b"Caf=E9 opening moved =96 see you there=85\n"
    )

    html = MIMEMultipart("alternative")
    html.attach(
        MIMEText(
            "<html><body><p>The <b>rollout</b> is paused.</p><ul><li>EU first</li></ul></body></html>", "html", "utf-8"
        )
    )
    html["Subject"] = "Rollout"
    html["From"] = "ops@example.com"
    html["Message-ID"] = "<html@x>"
    html["Date"] = format_datetime(T0 + timedelta(minutes=10))

    patch = MIMEMultipart()
    patch.attach(MIMEText("Patch attached, and the logs.", "plain", "utf-8"))
    diff = MIMEText("--- a/retry.py\n+++ b/retry.py\n-RETRIES = 3\n+RETRIES = settings.retries\n", "plain", "utf-8")
    diff.add_header("Content-Disposition", "attachment", filename="0001-configurable-retries.patch")
    patch.attach(diff)
    binary = MIMEImage(b"\x89PNG\r\n\x1a\n", "png")
    binary.add_header("Content-Disposition", "attachment", filename="graph.png")
    patch.attach(binary)
    patch["Subject"] = "Retry patch"
    patch["From"] = "sam@example.com"
    patch["Message-ID"] = "<patch@x>"
    patch["Date"] = format_datetime(T0 + timedelta(minutes=15))

    folder = tmp_path / "eml"
    folder.mkdir()
    for n, msg in enumerate([chinese, html, patch]):
        (folder / f"{n}.eml").write_bytes(msg.as_bytes())
    (folder / "w.eml").write_bytes(western)
    runner, _ = run(folder)
    assert runner.failures == []
    docs = documents(runner)
    cn = docs["email:cn@x"].items[0]
    assert cn.title == "部署状态" and "周五" in cn.text and cn.author == "李雷"
    fr = docs["email:w1252@x"].items[0]
    assert fr.title == "Café plans" and "opening moved – see you there…" in fr.text and fr.author == "René"
    assert "rollout" in docs["email:html@x"].items[0].text and "<b>" not in docs["email:html@x"].items[0].text
    attached = docs["email:patch@x"].items[0]
    assert "RETRIES = settings.retries" in attached.text  # a text-like attachment is indexed
    assert "graph.png (image/png)" in attached.text and "PNG" not in attached.text.replace("graph.png", "")


def test_patch_series_groups_under_cover_letter_without_threading_headers(tmp_path: Path) -> None:
    msgs = [message("c0@x", "[PATCH v2 0/2] ledger: faster reconciliation", "Cover letter.")]
    msgs += [
        message(f"p{n}@x", f"[PATCH v2 {n}/2] ledger: step {n}", f"Step {n} of the series.", minutes=n) for n in (2, 1)
    ]
    msgs.append(
        message(
            "rv@x",
            "Re: [PATCH v2 1/2] ledger: step 1",
            "Reviewed-by: Sam",
            minutes=9,
            reply_to="p1@x",
            sender="Sam Ortiz <sam@example.com>",
        )
    )
    box = tmp_path / "s.mbox"
    write_mbox(box, msgs)
    runner, _ = run(box)
    docs = documents(runner)
    assert list(docs) == ["email:c0@x"]
    # Cover letter, then each patch followed by its review.
    assert [i.ref for i in docs["email:c0@x"].items] == ["email:c0@x", "email:p1@x", "email:rv@x", "email:p2@x"]
    chunks = chunk_thread(docs["email:c0@x"], limits=ChunkLimits(max_chars=1200))
    # A chunk never mixes two patches of the series.
    for chunk in chunks:
        steps = {s for s in ("step 1", "step 2") if s in chunk.text}
        assert len(steps) <= 1
    assert any(chunk.refs == ["email:p1@x", "email:rv@x"] for chunk in chunks)
    first = next(c for c in chunks if "email:rv@x" in c.refs)
    assert "Sam Ortiz to team-dev@lists.example.org | Re: [PATCH v2 1/2] ledger: step 1" in first.text


def test_bad_messages_are_counted_and_the_rest_continues(tmp_path: Path) -> None:
    good = message("ok@x", "Fine", "This one is fine.")
    unknown = MIMEText("still readable", "plain", "utf-8")
    unknown.set_param("charset", "x-no-such-charset")
    unknown["Message-ID"] = "<cs@x>"
    unknown["Subject"] = "Odd charset"
    unknown["Date"] = format_datetime(T0)
    box = tmp_path / "mixed.mbox"
    write_mbox(box, [good, unknown])
    # A truncated mailbox: the last message stops in the middle of its headers.
    with box.open("ab") as handle:
        handle.write(b"From x@example.com Mon May  4 09:00:00 2026\nFrom: x@example.com\nSubj")
    (tmp_path / "maildir").mkdir()
    runner, _ = run(box)
    normalised = runner.normalise()
    keys = {d.key for d in normalised.documents}
    assert {"email:ok@x", "email:cs@x"} <= keys
    assert [f.key for f in normalised.failures] == ["cs@x"]
    assert "x-no-such-charset" in normalised.failures[0].reason


def test_maildir_deletions_and_new_folder_on_resync(tmp_path: Path) -> None:
    root = tmp_path / "Mail"
    inbox = mailbox.Maildir(root, create=True)
    keep = inbox.add(message("a@x", "Standup notes", "Ship on Friday."))
    gone = inbox.add(message("b@x", "Lunch", "Pizza?", minutes=1))
    inbox.flush()
    connector = LocalMailConnector("inbox", root)
    runner = SourceRunner(connector)
    runner.collect()
    assert set(runner.cache) == {"a@x", "b@x"}
    assert {d.items[0].metadata["folder"] for d in runner.normalise().documents} == {"Mail"}

    inbox.remove(gone)
    projects = inbox.add_folder("Projects")
    projects.add(message("c@x", "Ledger plan", "Phase two starts in June.", minutes=2))
    runner.collect()
    assert set(runner.cache) == {"a@x", "c@x"}
    folders = {d.key: d.items[0].metadata["folder"] for d in runner.normalise().documents}
    assert folders == {"email:a@x": "Mail", "email:c@x": "Projects"}
    assert keep


def test_unchanged_mailbox_fetches_nothing_and_missing_path_is_one_error(tmp_path: Path) -> None:
    box = tmp_path / "a.mbox"
    write_mbox(box, [message("a@x", "One", "one")])
    connector = LocalMailConnector("inbox", box)
    runner = SourceRunner(connector)
    runner.collect()
    again = runner.collect()
    assert sum(len(b.records) for b in again) == 0
    os.utime(box, (1, 1))
    assert sum(len(b.records) for b in runner.collect()) == 1

    from briefing.errors import SourceError

    with pytest.raises(SourceError, match=r"sources\.inbox\.path"):
        list(LocalMailConnector("inbox", tmp_path / "nope.mbox").fetch(connector.initial_cursor()))


def test_clean_body_drops_top_posted_history() -> None:
    text = "Yes, go ahead.\n\n-----Original Message-----\nFrom: Dana\nSent: Monday\nSubject: plan\n\nShall we ship?"
    assert clean_body(text) == "Yes, go ahead."


def _patch_text(files: int) -> str:
    hunks = []
    for n in range(files):
        hunks.append(
            f"diff --git a/drivers/ledger/part{n}.c b/drivers/ledger/part{n}.c\nindex 1111111..2222222 100644\n"
            f"--- a/drivers/ledger/part{n}.c\n+++ b/drivers/ledger/part{n}.c\n"
            f"@@ -10,7 +10,8 @@ static int ledger_probe_{n}(struct platform_device *pdev)\n"
            + "".join(f" \tcontext_line_{k}();\n" for k in range(6))
            + "-\tret = old_call();\n+\tret = new_call();\n"
        )
    return "Retries are now configurable.\n\nSigned-off-by: Dana Levi <dana@example.com>\n---\n" + "".join(hunks)


def test_a_long_diff_is_indexed_as_its_files_and_changed_functions(tmp_path: Path) -> None:
    inline = message("inline@x", "[PATCH] ledger: configurable retries", _patch_text(3))
    attached = MIMEMultipart()
    attached.attach(MIMEText("The patch is attached.", "plain", "utf-8"))
    part = MIMEText(_patch_text(2), "plain", "utf-8")
    part.add_header("Content-Disposition", "attachment", filename="0001-ledger.patch")
    attached.attach(part)
    attached["Subject"] = "ledger patch"
    attached["From"] = "sam@example.com"
    attached["Message-ID"] = "<attached@x>"
    attached["Date"] = format_datetime(T0 + timedelta(minutes=5))
    box = tmp_path / "list.mbox"
    write_mbox(box, [inline, attached])
    runner, _ = run(box)
    docs = documents(runner)
    text = docs["email:inline@x"].items[0].text
    assert "Retries are now configurable." in text and "Signed-off-by: Dana Levi" in text  # the message stays
    assert "context_line_" not in text and "new_call" not in text  # the diff's lines do not
    assert "drivers/ledger/part0.c, drivers/ledger/part1.c, drivers/ledger/part2.c" in text
    assert "static int ledger_probe_2(struct platform_device *pdev)" in text
    text = docs["email:attached@x"].items[0].text
    assert "0001-ledger.patch" in text and "context_line_" not in text
    assert "drivers/ledger/part1.c" in text and "ledger_probe_1" in text
