"""Confluence storage format to Markdown: the structures a reader (and the section chunker) relies on."""

from __future__ import annotations

from connectors.confluence.storage import storage_to_markdown


def test_code_macro_becomes_a_fenced_block_with_its_language_and_raw_text() -> None:
    storage = (
        '<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">python</ac:parameter>'
        '<ac:plain-text-body><![CDATA[if a < b and c > 0:\n    run("<x> & y")]]></ac:plain-text-body>'
        "</ac:structured-macro>"
    )
    assert storage_to_markdown(storage) == '```python\nif a < b and c > 0:\n    run("<x> & y")\n```'


def test_code_containing_a_fence_gets_a_longer_fence() -> None:
    storage = (
        '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[```\nx\n```]]>'
        "</ac:plain-text-body></ac:structured-macro>"
    )
    assert storage_to_markdown(storage) == "````\n```\nx\n```\n````"


def test_table_becomes_a_pipe_table_with_escaped_pipes_and_padded_rows() -> None:
    storage = (
        "<table><colgroup><col /><col /></colgroup><tbody>"
        "<tr><th><p>Step</p></th><th><p>Owner</p></th></tr>"
        "<tr><td><p>Drain <strong>queue</strong></p></td><td>Ana | Bo</td></tr>"
        "<tr><td>Switch</td></tr></tbody></table>"
    )
    assert storage_to_markdown(storage) == (
        "| Step | Owner |\n| --- | --- |\n| Drain **queue** | Ana \\| Bo |\n| Switch |  |"
    )


def test_nested_lists_are_indented_under_their_parent_item() -> None:
    storage = (
        "<ol><li><p>Prepare</p><ul><li>check <code>lag</code></li><li>pause jobs<ul><li>payouts</li></ul></li>"
        "</ul></li><li>Switch</li></ol>"
    )
    assert storage_to_markdown(storage) == ("1. Prepare\n   - check `lag`\n   - pause jobs\n     - payouts\n2. Switch")


def test_headings_paragraphs_links_mentions_and_jira_macros() -> None:
    storage = (
        '<h1>Plan</h1><p>Owner: <ac:link><ri:user ri:account-id="acc-1" /></ac:link>, see '
        '<a href="https://docs.example/run">the runbook</a> and '
        '<ac:structured-macro ac:name="jira"><ac:parameter ac:name="key">PAY-42</ac:parameter>'
        "</ac:structured-macro>.</p><h2>Page link</h2><p>"
        '<ac:link><ri:page ri:content-title="Broker Runbook" /></ac:link>&nbsp;and '
        '<ac:link><ri:user ri:account-id="gone" /></ac:link></p>'
    )
    assert storage_to_markdown(storage, {"acc-1": "Ana Lima"}) == (
        "# Plan\n\nOwner: @Ana Lima, see [the runbook](https://docs.example/run) and PAY-42.\n\n"
        "## Page link\n\nBroker Runbook and @unknown user"
    )


def test_panels_and_unknown_macros_keep_their_text_and_tasks_their_state() -> None:
    storage = (
        '<ac:structured-macro ac:name="warning"><ac:rich-text-body><p>Never restart at 02:00.</p>'
        '</ac:rich-text-body></ac:structured-macro><ac:structured-macro ac:name="mystery"><ac:rich-text-body>'
        "<p>Kept text.</p></ac:rich-text-body></ac:structured-macro>"
        '<ac:structured-macro ac:name="toc" />'
        "<ac:task-list><ac:task><ac:task-status>complete</ac:task-status><ac:task-body>write doc</ac:task-body>"
        "</ac:task><ac:task><ac:task-status>incomplete</ac:task-status><ac:task-body>review</ac:task-body>"
        "</ac:task></ac:task-list>"
    )
    assert storage_to_markdown(storage) == (
        "> **Warning**\n>\n> Never restart at 02:00.\n\nKept text.\n\n- [x] write doc\n- [ ] review"
    )


def test_image_keeps_its_alt_text_and_caption() -> None:
    storage = (
        '<p>Overview:</p><ac:image ac:align="center" ac:alt="Deploy pipeline diagram">'
        '<ri:attachment ri:filename="pipeline.png"/><ac:caption><p>Stages from <strong>build</strong> to prod</p>'
        "</ac:caption></ac:image>"
        '<p><ac:image ac:title="Grafana panel"><ri:url ri:value="https://x.test/p.png"/></ac:image></p>'
        '<p><ac:image><ri:attachment ri:filename="bare.png"/></ac:image></p>'
    )
    assert storage_to_markdown(storage) == (
        "Overview:\n\n(image: Deploy pipeline diagram: Stages from **build** to prod)\n\n(image: Grafana panel)"
    )


def test_emoticons_keep_their_emoji_fallback_or_name() -> None:
    storage = (
        '<p>Shipped <ac:emoticon ac:name="tick" ac:emoji-shortname=":check_mark:" ac:emoji-id="2714" '
        'ac:emoji-fallback="\u2714\ufe0f"/> and <ac:emoticon ac:name="blue-star" ac:emoji-shortname=":rocket:"/> '
        'then <ac:emoticon ac:name="smile"/></p>'
    )
    assert storage_to_markdown(storage) == "Shipped \u2714\ufe0f and :rocket: then :smile:"
