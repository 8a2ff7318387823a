"""What of a mail is the sender's own, on the test mail of talon and mail-parser-reply and on forwards."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from connectors.email.mime import clean_body, html_to_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "email_replies"
TALON = json.loads((FIXTURES / "talon_plain_cases.json").read_text(encoding="utf-8"))
# Where `brief` differs from talon on purpose, or on talon's own link-tracking heuristics.
DEVIATIONS = {
    "test_reply_after_quotations": "an answer below a quote keeps the quoted line it answers (inline review)",
    "test_link_closed_with_quotation_marker_on_new_line": "talon's heuristic for tracking links broken by '>'",
    "test_link_breaks_quotation_markers_sequence": "talon's heuristic for tracking links broken by '>'",
}


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("case", TALON, ids=[f"{c['test']}-{n}" for n, c in enumerate(TALON)])
def test_talon_plain_text_cases(case: dict[str, str]) -> None:
    if case["test"] in DEVIATIONS:
        pytest.xfail(DEVIATIONS[case["test"]])
    assert _flat(clean_body(case["text"])) == _flat(case["expected"])


@pytest.mark.parametrize("name", sorted(p.stem for p in (FIXTURES / "html").glob("*.html")))
def test_html_replies_of_nine_clients_keep_only_the_reply(name: str) -> None:
    html = (FIXTURES / "html" / f"{name}.html").read_text(encoding="utf-8")
    assert re.sub(r"\s", "", clean_body(html_to_text(html))) == "Hi.Iamfine.Thanks,Alex"


MAIL_PARSER_REPLY = {
    "email_headers_no_delimiter": "And another reply!",
    "email_sent_from_iPhone": "Here is another email",
    "email_sent_from_multi_word_mobile_device": "Here is another email",
    "email_sent_from_BlackBerry": "Here is another email",
    "email_sent_from_not_signature": "Here is another email\n\nSent from my desk, is much easier than my mobile phone.",
    "email_2_3": "Outlook with a reply above headers using unusual format",
}


@pytest.mark.parametrize("name", sorted(MAIL_PARSER_REPLY))
def test_mail_parser_reply_first_replies(name: str) -> None:
    text = (FIXTURES / "mail_parser_reply" / f"{name}.txt").read_text(encoding="utf-8")
    assert _flat(clean_body(text)) == _flat(MAIL_PARSER_REPLY[name])


@pytest.mark.parametrize(
    ("name", "kept", "gone"),
    [
        ("email_pl_1_2", "Czesc Anno", "Wszystko w porządku"),
        ("email_swedish_1", "Ursäkta mitt sena svar!", "Hej Person B,"),
        ("email_danish_1", "Tak for din mail", "Hvordan går det"),
        ("multiline_on_de", "Am heutigen Tage", "schrieb John Doe"),
        ("email_nl_1_2", "Outlook met een antwoord", "Google Apps Sync Team"),
    ],
)
def test_localised_attributions_and_header_blocks_end_the_reply(name: str, kept: str, gone: str) -> None:
    body = clean_body((FIXTURES / "mail_parser_reply" / f"{name}.txt").read_text(encoding="utf-8"))
    assert kept in body and gone not in body


@pytest.mark.parametrize(
    "attribution",
    [
        "El 13/12/2017 a las 21:11, Ana López <ana@example.com> escribió:",
        "Il giorno 13 dic 2017, alle ore 21:11, Luca Rossi <luca@example.com> ha scritto:",
        "Em 13 de dez. de 2017, às 21:11, João Silva <joao@example.com> escreveu:",
        "Am 13.12.2017 21:11 schrieb Max Muster <max@example.com>:",
        "Le 13 déc. 2017 à 21:11, Jean Dupont <jean@example.com> a écrit :",
        "On Wed, Dec 13, 2017 at 9:11 PM, Bob Smith <\nbob@example.com> wrote:",
    ],
)
def test_attributions_in_other_languages_and_over_two_lines_end_the_reply(attribution: str) -> None:
    body = clean_body(f"Sounds good, ship it.\n\n{attribution}\n\n> Can we ship on Friday?\n> Thanks")
    assert body == "Sounds good, ship it."


def test_a_last_line_starting_with_on_is_text_not_an_attribution() -> None:
    assert clean_body("The deploy is done.\nOn Friday we look at the graphs.") == (
        "The deploy is done.\nOn Friday we look at the graphs."
    )


def test_a_forward_is_kept_with_its_original_sender_date_and_text() -> None:
    text = (
        "FYI, see below.\n\n---------- Forwarded message ----------\nFrom: Bob Smith <bob@example.com>\n"
        "Date: Tue, Sep 4, 2012 at 1:35 PM\nSubject: Outage\nTo: ops@example.com\n\nThe EU cluster is down until 3pm."
    )
    body = clean_body(text)
    assert body.startswith("FYI, see below.")
    assert "Bob Smith <bob@example.com>" in body and "Tue, Sep 4, 2012 at 1:35 PM" in body
    assert "The EU cluster is down until 3pm." in body


def test_an_html_reply_above_a_gmail_quote_drops_the_quote_but_a_gmail_forward_is_kept() -> None:
    reply = (
        '<div dir="ltr">Yes, Thursday works.</div><br><div class="gmail_quote"><div class="gmail_attr">'
        "On Mon, May 4, 2026 at 9:00 AM Bob &lt;bob@example.com&gt; wrote:<br></div>"
        '<blockquote class="gmail_quote">Can we meet Thursday to plan the cut-over?</blockquote></div>'
    )
    assert clean_body(html_to_text(reply)) == "Yes, Thursday works."
    forward = (
        '<div dir="ltr">FYI</div><div class="gmail_quote"><div class="gmail_attr">---------- Forwarded message '
        "---------<br>From: Bob &lt;bob@example.com&gt;<br>Date: Mon, May 4, 2026 at 9:00 AM<br></div>"
        "<div>The cut-over moves to Thursday.</div></div>"
    )
    body = clean_body(html_to_text(forward))
    assert "The cut-over moves to Thursday." in body and "bob@example.com" in body


def test_an_inline_html_answer_keeps_the_quoted_line_it_answers() -> None:
    html = (
        '<div>On Mon, May 4, 2026 at 9:00 AM Bob wrote:</div><blockquote type="cite">We retry three times.</blockquote>'
        '<div>Make the retry count configurable.</div><blockquote type="cite">The rest is unchanged.</blockquote>'
    )
    lines = [line.strip() for line in clean_body(html_to_text(html)).split("\n") if line.strip()]
    body = "\n".join(lines)
    assert "> We retry three times.\nMake the retry count configurable." in body
    assert "The rest is unchanged" not in body


def test_an_html_reply_above_a_plain_blockquote_drops_the_quote_unless_the_page_is_all_quote() -> None:
    reply = "<div>Ship it on Friday.</div><div><br></div><blockquote>Can we ship the importer this week?</blockquote>"
    assert clean_body(html_to_text(reply)) == "Ship it on Friday."
    # A message that is nothing but a quoted passage keeps it: there is no reply above it to keep instead.
    only = "<blockquote>The importer ships on Friday, after the schema review.</blockquote>"
    assert "after the schema review" in clean_body(html_to_text(only))


def test_an_html_rule_above_a_from_block_ends_the_reply_but_a_plain_rule_does_not() -> None:
    reply = (
        "<div>Budget approved.<hr><b>From: </b>Dana &lt;dana@example.com&gt;<br><b>Sent: </b>Monday, May 4, 2026"
        "<br><b>To: </b>team@example.com<br><b>Subject: </b>Budget<br><p>Please approve the budget.</p></div>"
    )
    body = clean_body(html_to_text(reply))
    assert body.strip() == "Budget approved."
    section = "<div>Agenda<hr>Item one: the budget.</div>"
    assert "Item one: the budget." in clean_body(html_to_text(section))


@pytest.mark.parametrize(
    "attribution",
    [
        '12.05.2026, 09.15, "Dana Reyes" <dana@example.com>:',
        "to 14. mai 2026 kl. 09:15 skrev Dana Reyes <dana@example.com\n>:",
        "to 14. toukokuuta 2026 klo 9.15 Dana Reyes\n<dana@example.com> kirjoitti:",
        '14.05.2026 09:15 пользователь "Dana Reyes" <\ndana@example.com> написал:',
        "-------- Oprindelig besked --------",
    ],
)
def test_date_first_and_nordic_or_russian_attributions_end_the_reply(attribution: str) -> None:
    text = f"The export is fixed.\n\n{attribution}\n\n> Is the export fixed?\n> Dana"
    assert clean_body(text) == "The export is fixed."


def test_a_wrapped_quoted_line_is_history_not_an_inline_answer() -> None:
    text = (
        "Agreed, ship it.\n\nOn Mon, May 4, 2026 at 9:00 AM Bob <bob@example.com> wrote:\n"
        "> The importer now retries failed batches three times before it gives up and\n"
        "reports the batch as lost.\n> Can we ship it this week?"
    )
    assert clean_body(text) == "Agreed, ship it."


@pytest.mark.parametrize(
    "signature",
    ["Sent from my Pixel 8", "Get Outlook for iOS<https://aka.ms/o0ukef>", "Gesendet von Outlook für Android"],
)
def test_a_mobile_signature_ends_the_reply_and_the_unmarked_history_below_it(signature: str) -> None:
    text = f"Thursday works.\n\n{signature}\n\nCan we move the review to Thursday?"
    assert clean_body(text) == "Thursday works."


def test_a_separator_rule_above_an_outlook_header_block_is_not_kept() -> None:
    text = (
        "Approved.\n\n ------------------------------\n\n*From:* Dana [mailto:dana@example.com]\n"
        "*Sent:* Monday, May 4, 2026 9:00 AM\n*To:* team@example.com\n*Subject:* Budget\n\nPlease approve."
    )
    assert clean_body(text) == "Approved."


def test_text_indented_with_gmails_indent_button_is_the_senders_own() -> None:
    html = (
        '<div dir="ltr">The plan:<blockquote class="gmail_quote" style="margin:0 0 0 40px;border:none;padding:0px">'
        "Move the importer to the new queue on Monday.</blockquote></div>"
    )
    assert "Move the importer to the new queue on Monday." in clean_body(html_to_text(html))


def test_a_short_rule_above_a_mailing_list_footer_ends_the_message() -> None:
    text = "Merged, thanks.\n\n__\nteam-dev mailing list\nteam-dev@example.com\nhttps://lists.example.com/team-dev"
    assert clean_body(text) == "Merged, thanks."


def test_a_french_webmail_header_block_and_its_rule_end_the_reply() -> None:
    text = (
        'C\'est noté.\n\n====\n\nMessage du : 04/05/2026 09:00\nDe : "Dana" <dana@example.com>\n'
        "A : team@example.com\nSujet : Budget\n\nMerci de valider le budget."
    )
    assert clean_body(text) == "C'est noté."


def test_an_attribution_whose_subject_line_holds_a_lowercase_on_is_cut_whole() -> None:
    text = "Done.\n\nOn Thursday, May 7, 2026 at 3:03 PM, weekly sync notes on Bob wrote:\n\n> Can you send the notes?"
    assert clean_body(text) == "Done."


def test_a_lowercase_answer_or_an_indented_code_line_below_a_long_quoted_line_stays_the_senders() -> None:
    review = (
        "On Mon, May 4, 2026 at 9:00 AM Bob <bob@example.com> wrote:\n"
        "> As per the shematics the regulator is supplied by the always-on rail, so\n"
        "typo: schematics\n\n> Rename the node.\nok"
    )
    assert "typo: schematics" in clean_body(review)
    robot = (
        "Hi,\n\nOn Mon, May 4, 2026 at 9:00 AM Bot <bot@example.com> wrote:\n"
        ">> drivers/gpu/drm/x.c:304:20: warning: format '%d' expects argument of type 'int'\n"
        '       dev_err(d->dev, "read error");\n> Please fix.\nFixed in v2.'
    )
    assert 'dev_err(d->dev, "read error");' in clean_body(robot)
