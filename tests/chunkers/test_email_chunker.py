"""Email chunks spend their token budget on the mail: the envelope line does not repeat what the header says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from briefing.model import ChunkLimits, Document, Item
from chunkers.email import chunk_thread

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def item(n: int, subject: str, text: str, author: str = "Dana Levi") -> Item:
    return Item(
        ref=f"email:m{n}@x",
        source_type="email",
        kind="message",
        text=text,
        occurred_at=AT + timedelta(minutes=n),
        author=author,
        title=subject,
        metadata={"to": [["Sam Ortiz", "sam@x"]], "cc": []},
    )


def thread(*items: Item) -> Document:
    return Document(
        key="email:m1@x", kind="email_thread", source_type="email", title="Ledger cut-over", items=list(items)
    )


def test_a_reply_in_its_own_thread_does_not_repeat_the_subject() -> None:
    doc = thread(item(1, "Ledger cut-over", "Shall we move it to Thursday?"), item(2, "Re: Ledger cut-over", "Yes."))
    (chunk,) = chunk_thread(doc, limits=ChunkLimits(max_chars=1200))
    assert "] Dana Levi to Sam Ortiz\nShall we move it" in chunk.text
    assert "| Re: Ledger cut-over" not in chunk.text and chunk.text.startswith("Email thread: Ledger cut-over")
    other = thread(item(1, "Ledger cut-over", "Plan."), item(2, "Budget for Q3", "Numbers.", author="Sam Ortiz"))
    assert any("| Budget for Q3" in c.text for c in chunk_thread(other, limits=ChunkLimits(max_chars=1200)))


def test_later_pieces_of_a_long_message_carry_only_time_and_sender() -> None:
    text = "\n\n".join(f"Paragraph {n}: the ledger cut-over needs step {n} checked twice." for n in range(40))
    doc = thread(item(1, "Ledger cut-over", text))
    chunks = chunk_thread(doc, limits=ChunkLimits(max_chars=400))
    assert len(chunks) > 3
    assert "Dana Levi to Sam Ortiz" in chunks[0].text
    assert all("Dana Levi (continued)" in c.text and "to Sam Ortiz" not in c.text for c in chunks[1:])
    assert all(len(c.text) <= 400 for c in chunks)
    # Nothing of the message is lost between the pieces.
    assert all(f"step {n} checked" in "".join(c.text for c in chunks) for n in range(40))
