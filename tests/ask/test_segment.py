"""Sentence segmentation of evidence: lists, code, URLs, versions, dates and Slack markup never cut a piece wrong."""

from __future__ import annotations

from briefing.ask.segment import clean, sentences


def test_versions_urls_file_names_and_inline_code_do_not_end_a_sentence() -> None:
    text = (
        "Upgrade to v0.9.1 first, then set `max_threads: 8` in config.yml before the next run. "
        "The guide at https://olake.io/docs/install/helm.html covers the chart. It needs Helm 3.12 or newer."
    )
    assert sentences(text) == [
        "Upgrade to v0.9.1 first, then set `max_threads: 8` in config.yml before the next run.",
        "The guide at https://olake.io/docs/install/helm.html covers the chart.",
        "It needs Helm 3.12 or newer.",
    ]


def test_a_date_before_a_full_stop_is_not_a_numbered_list() -> None:
    text = "The fix for the oversized batches shipped on Aug 3. Every sync after that finished without errors."
    assert sentences(text) == [
        "The fix for the oversized batches shipped on Aug 3.",
        "Every sync after that finished without errors.",
    ]


def test_a_list_lead_in_keeps_its_items() -> None:
    text = (
        "Here is a quick summary of the internal feedback on the new UI, 1. the job list is slow with many "
        "streams 2. the logs page needs a search box. We will pick these up next sprint, after the release."
    )
    pieces = sentences(text)
    assert pieces[0].startswith("Here is a quick summary of the internal feedback on the new UI, 1. the job list")
    assert "2. the logs page needs a search box." in pieces[0]
    assert pieces[1] == "We will pick these up next sprint, after the release."


def test_list_items_on_their_own_lines_are_separate_pieces_unless_announced() -> None:
    items = "- the catalog is reachable from the worker\n- state.json is backed up in the bucket"
    assert sentences(items) == ["- the catalog is reachable from the worker", "- state.json is backed up in the bucket"]
    announced = sentences("Things to check before the upgrade:\n" + items)
    assert announced == [
        "Things to check before the upgrade: - the catalog is reachable from the worker "
        "- state.json is backed up in the bucket"
    ]


def test_code_lines_are_evidence_and_never_split() -> None:
    text = "Run this before retrying the job:\n```\ndocker compose down. && docker compose up -d\n```"
    assert [clean(p) for p in sentences(text)] == [
        "Run this before retrying the job: docker compose down. && docker compose up -d"
    ]
    assert [clean(p) for p in sentences("```\ndocker compose down. Then up.\n```")] == ["docker compose down. Then up."]


def test_slack_emphasis_and_emoji_are_removed_from_the_quote() -> None:
    assert clean("*Released* _v0.9.3_ today :tada: with ~the~ fixes [2]") == "Released v0.9.3 today with the fixes (2)"


def test_image_captions_are_not_evidence() -> None:
    assert sentences("(image: OLake Go Schema Evolution Iceberg)\n\nColumns are matched by field id, not by name.") == [
        "Columns are matched by field id, not by name."
    ]
    long_caption = "(image: " + "one atomic commit writes data files and the marker together, " * 6 + "all or nothing)"
    assert sentences(long_caption + "\n\nThe marker is read first on the next run.") == [
        "The marker is read first on the next run."
    ]
