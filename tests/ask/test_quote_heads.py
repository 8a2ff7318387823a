"""A quoted mail or comment is the sender's words: the stamp, sender, recipients and subject its unit opens with are
said by the attribution, not repeated inside the quote."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.ask.extractive.heads import without_head
from briefing.embed import Embedder
from briefing.model import ChunkLimits, Document, Item
from briefing.settings import AnswerSettings, EmbeddingSettings
from chunkers.email import chunk_thread
from tests.ask.chunks import assert_citations_valid, first_line
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("heads-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def _mail(ref: str, author: str, day: int, subject: str, text: str) -> Item:
    return Item(
        ref=ref,
        source_type="email",
        kind="message",
        text=text,
        occurred_at=datetime(2019, 8, day, 14, 21, tzinfo=UTC),
        author=author,
        title=subject,
        container="linux-arm-kernel",
        metadata={"to": [["Yong Wu", "yong@example.org"], ["Will Deacon", "will@example.org"]]},
    )


THREAD = Document(
    key="email:cover@example.org",
    kind="thread",
    source_type="email",
    title="[PATCH v11 00/23] MT8183 IOMMU SUPPORT",
    container="linux-arm-kernel",
    items=[
        _mail(
            "email:cover@example.org",
            "Yong Wu",
            28,
            "[PATCH v11 00/23] MT8183 IOMMU SUPPORT",
            "This patchset mainly adds support for the MT8183 IOMMU and SMI.",
        ),
        _mail(
            "email:applied@example.org",
            "Joerg Roedel",
            30,
            "Re: [PATCH v11 00/23] MT8183 IOMMU SUPPORT",
            "Applied to arm/mediatek, thanks.",
        ),
    ],
)


def test_a_mail_quote_is_the_body_without_its_envelope(answerer: ExtractiveAnswerer) -> None:
    chunks = chunk_thread(THREAD, limits=ChunkLimits(max_chars=1200))
    answer = answerer.answer(parsed("Into which branch was the MT8183 IOMMU series applied?"), chunks)
    lines = answer.text.splitlines()
    assert any("Joerg Roedel" in x and '"Applied to arm/mediatek, thanks."' in x for x in lines), answer.text
    assert '"This patchset mainly adds' in answer.text or "Joerg Roedel" in first_line(answer)
    assert "UTC]" not in answer.text and " to Yong Wu" not in answer.text
    assert_citations_valid(answer, chunks)


@pytest.mark.parametrize(
    ("text", "author", "first", "shown"),
    [
        ("[2022-05-03 17:41] seanturner: I posted this PR.", "seanturner", "", "I posted this PR."),
        ("[2026-05-23] Ann Lee 07f190f: feat: wire SIGINT", "Ann Lee", "", "feat: wire SIGINT"),
        # Another person's stamp (a quoted header), or a sentence that is only the head, is left as it is.
        ("[2022-05-03 17:41] bob: I posted this PR.", "seanturner", "", "[2022-05-03 17:41] bob: I posted this PR."),
        ("[2019-08-30 12:56 UTC] Ann to Bo | Re: x", "Ann", "[2019-08-30 12:56 UTC] Ann to Bo | Re: x", None),
    ],
)
def test_the_head_is_left_out_only_when_it_is_the_units_own(
    text: str, author: str, first: str, shown: str | None
) -> None:
    assert without_head(text, author, first) == (text if shown is None else shown)
