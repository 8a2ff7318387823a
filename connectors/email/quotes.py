"""What of a mail body is the sender's own: quoted history, attributions, header blocks and signatures found.

A splitter is where quoted history starts: an attribution ("On <date>, <person> wrote:", over up to four
lines, in en, de, fr, es, it, nl, pl, sv, da, no, fi, pt, ru, or a date first: "30.09.2017, 18.30, Name
<addr>:"), an "-----Original Message-----" line, a header block ("From: / Sent: / To:" in those languages), or
"---- John Smith wrote ----". A line starting "On " is a splitter only when it reads as an attribution. Below a
splitter everything is history unless the sender answers between quoted lines (inline review), where each
answer keeps the quoted line it answers; the wrapped remainder of a long quoted line is quoted text, not an
answer. A forwarded message is content: kept with its original sender and date. Mobile signatures ("Sent from
my iPhone") go, with the unmarked history some clients put below them.
"""

from __future__ import annotations

import re

_WROTE_END = (
    r"(?:wrote|writes|sent|a\s+écrit|schrieb|escribió|escribio|ha\s+scritto|scrisse|schreef|"
    r"het\s+volgende\s+geschreven|napisał\(a\)|napisał|napisała|skrev|escreveu|đã\s+viết|kirjoitti|написал[аи]?)"
)
# An attribution: opens with a language's "On" (or a date, or "Sent from ... Name <addr>"), ends with a verb
# of writing and a colon, or ends with "<address>:" after a date.
_ATTRIBUTION = re.compile(
    rf"^[-\s]*(?:(?:On|Am|Le|El|Il|Op|W\s+dniu|Dnia|Den|På|Em|Vào)\b.{{0,300}}?\b{_WROTE_END}\s*:?"
    rf"|.{{0,200}}\b{_WROTE_END}\s*:"
    r"|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b.{0,200}<[^<>\s]+@[^<>\s]+>\s*:"
    r"|(?:On|Le|Am|El|Il|Op)\s.{0,200}<[^<>\s]+@[^<>\s]+>\s*:"
    r"|.{0,120}\b\d{1,2}:\d{2}\b.{0,120}<[^<>\s]+@[^<>\s]+>\s*:"
    r"|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b.{0,200}<[^<>\s]+@[^<>\s]+>\s*:"
    rf"|.{{0,200}}\b{_WROTE_END}\s.{{0,100}}<[^<>\s]+@[^<>\s]+?\s*>?\s*:"
    r")\s*-*\s*$",
    re.IGNORECASE | re.DOTALL,
)
_OPENER = re.compile(
    r"^[-\s]*(?:(?:On|Am|Le|El|Il|Op|W\s+dniu|Dnia|Den|På|Em|Vào)\s|\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b|Sent\s+from\s"
    r"|[^\W\d]{2,4}\.?\s+\d{1,2}\.\s)",  # "tir. 18. apr. 2017 kl. 13:09", "pe 20. lokakuuta 2017"
    re.IGNORECASE,
)
_SHARED_LINE = re.compile(
    rf"(?:-{{2,}}\s*)?(?<![\w-])(?-i:On)\s+\w{{3}},?\s.{{0,200}}\b{_WROTE_END}\s*:?\s*$",
    re.IGNORECASE,
)
_ANDROID = re.compile(r"^-{2,}\s*.{1,80}\s+(?:wrote|schrieb|a écrit|escribió|skrev)\s*-{2,}\s*$", re.IGNORECASE)
_ORIGINAL = re.compile(
    r"^\s*-{2,}\s*(?:Original\s+Message|Reply\s+Message|Ursprüngliche\s+Nachricht|Antwort\s+Nachricht|"
    r"Oprindelig\s+meddelelse|Message\s+d'origine|Mensaje\s+original|Messaggio\s+originale|"
    r"Oorspronkelijk\s+bericht|Originalmeddelande|Ursprungligt\s+meddelande|Mensagem\s+original|"
    r"Wiadomość\s+oryginalna|Original\s+Nachricht|Oprindelig\s+besked)\s*-{2,}\s*$|^\s*_{10,}\s*$",
    re.IGNORECASE,
)
_HEADER_KEY = (
    r"From|Von|De|Fra|Från|Van|Od|Da|Date|Datum|Sent|Gesendet|Envoyé|Enviado|Inviato|Verzonden|Wysłano|Sendt|"
    r"Skickat|Data|Fecha|To|An|À|A|Para|Aan|Do|Til|Till|Cc|Subject|Betreff|Objet|Asunto|Oggetto|Onderwerp|"
    r"Temat|Emne|Ämne|Assunto|От|Отправлено|Дата|Кому|Тема|Copie\s+à|Sujet"
)
_HEADER_LINE = re.compile(rf"^\s*\*?(?:{_HEADER_KEY})\s?:\*?\s?\S", re.IGNORECASE)
_HEADER_START = re.compile(
    r"^\s*\*?(?:From|Von|De|Fra|Från|Van|Od|Da|Date|Datum|От|Message\s+du)\s?:\*?\s?\S", re.IGNORECASE
)
_FORWARD = re.compile(
    r"^\s*(?:-{2,}\s*(?:Forwarded\s+message|Weitergeleitete\s+Nachricht|Message\s+transféré|"
    r"Mensaje\s+reenviado|Messaggio\s+inoltrato|Doorgestuurd\s+bericht|Wiadomość\s+przekazana|"
    r"Vidarebefordrat\s+meddelande|Videresendt\s+meddelelse|Mensagem\s+encaminhada)\s*-{2,}|"
    r"Begin\s+forwarded\s+message:)\s*$",
    re.IGNORECASE,
)
_MOBILE = re.compile(
    r"^\s*(?:Sent\s+from\s+(?:my\s+)?[\w\s.'-]{1,40}|Sent\s+with\s+[\w\s.'-]{1,40}|Get\s+Outlook\s+for\s+\w+|"
    r"Gesendet\s+von\s+[\w\s-]{1,40}|Envoyé\s+à\s+partir\s+de\s+[\w\s-]{1,40}|"
    r"Von\s+meinem\s+[\w\s-]{1,30}\s+gesendet|Envoyé\s+de\s+mon\s+[\w\s-]{1,30}|Enviado\s+desde\s+mi\s+[\w\s-]{1,30}|"
    r"Inviato\s+da(?:l\s+mio)?\s+[\w\s-]{1,30}|Verstuurd\s+vanaf\s+mijn\s+[\w\s-]{1,30}|"
    r"Wysłane\s+z\s+[\w\s'-]{1,30}|Skickat\s+från\s+min\s+[\w\s-]{1,30}|Enviado\s+do\s+meu\s+[\w\s-]{1,30})[!.]?\s*(?:<https?://[^<>\s]+>)?\s*$",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(r"^-- ?$")
_RULE_LINE = re.compile(r"^\s*[-_=*~]{3,}\s*$")
# A quoted line the sender's client wrapped: the rest of it follows on a line without "> ", in lower case.
_WRAPPED_AFTER = 60
_MAX_ATTRIBUTION_LINES = 6
_ADDRESS_END = re.compile(r"<[^<>\s]+@[^<>\s]+>\s*:?\s*$")


def attribution_at(lines: list[str], index: int) -> int:
    """How many lines (1 to 6) the attribution starting at `index` spans; 0 when none starts there."""
    if not lines[index].strip():
        return 0
    # Only a line that opens like an attribution ("On", "Le", a date) may continue on the next lines.
    opener = bool(_OPENER.match(lines[index]))
    longest = _MAX_ATTRIBUTION_LINES if opener else 1
    joined = ""
    for span in range(1, longest + 1):
        if index + span > len(lines):
            break
        piece = lines[index + span - 1].strip()
        if span > 1:
            piece = piece.lstrip("> ")
            if not piece:
                continue
            if _OPENER.match(piece):
                return 0  # a new attribution starts below: this line is text
        joined = re.sub(r"<\s+", "<", f"{joined} {piece}".strip())
        if _ATTRIBUTION.match(joined) or _ANDROID.match(joined):
            return span
        if opener and _ADDRESS_END.search(joined) and _next_quoted(lines, index + span):
            return span  # "2011/4/7 Nathan <support@example.com>" right above the quote
    return 0


def _next_quoted(lines: list[str], index: int) -> bool:
    following = next((line for line in lines[index:] if line.strip()), "")
    return following.lstrip().startswith(">")


def header_block_at(lines: list[str], index: int) -> int:
    """The length of a "From: / Sent: / To:" block starting at `index` (two header lines at least), else 0."""
    if not _HEADER_START.match(lines[index]):
        return 0
    count, seen = 1, 1
    for line in lines[index + 1 : index + 8]:
        if _HEADER_LINE.match(line):
            seen += 1
            count += 1
        elif line.strip() and seen < 2:
            count += 1  # a wrapped value ("[mailto:\n bob@example.com]")
        else:
            break
    return count if seen >= 2 else 0


def splitter_at(lines: list[str], index: int) -> int:
    """Lines taken by a splitter (attribution, original-message line, header block) starting at `index`."""
    if _ORIGINAL.match(lines[index]):
        return 1
    return attribution_at(lines, index) or header_block_at(lines, index)


def _answers_inline(lines: list[str]) -> bool:
    """Whether the sender writes between quoted lines below a splitter (an inline review, not top-posting)."""
    quoted = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(">"):
            quoted = True
        elif stripped and quoted and not _SIGNATURE.match(line):
            return True
    return False


def requote_wrapped(lines: list[str]) -> list[str]:
    """Lines with each wrapped remainder of a long quoted line quoted again ("> ... Nullam pharetra d" then
    "ignissim odio?", then "> ..." again): the remainder is quoted text, not an answer between quoted lines.

    Only an unindented line in lower case, right below a long quoted line and right above another quoted line;
    an answer ("typo: ...") has a blank line below it, and a compiler's source line is indented.
    """
    out = list(lines)
    for index in range(1, len(out) - 1):
        before, line, after = out[index - 1].strip(), out[index], out[index + 1].lstrip()
        if before.startswith(">") and len(before) >= _WRAPPED_AFTER and line[:1].islower() and after.startswith(">"):
            out[index] = f"{before[: len(before) - len(before.lstrip('> '))]}{line}"
    return out


def _end_of_reply(out: list[str]) -> list[str]:
    """The reply without the blank and rule lines ("-----", "____") left above the history it was cut from."""
    while out and (not out[-1].strip() or _RULE_LINE.match(out[-1])):
        out.pop()
    return out


def cut_history(text: str) -> str:
    """The text above the first splitter (or the whole text, splitters dropped, when answers are inline).

    A mobile client's signature ("Sent from my iPhone") ends the reply: what follows is the quoted message.
    """
    lines = requote_wrapped(text.split("\n"))
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if _FORWARD.match(line):
            out.extend(lines[index:])  # a forward is content: its sender, date and text are kept as sent
            break
        shared = _SHARED_LINE.search(line)
        if shared and not line.lstrip().startswith(">") and line[: shared.start()].strip(" -"):
            out.append(line[: shared.start()].rstrip(" -"))  # "reply On Wed, ... wrote:" on one line
            break
        if _MOBILE.match(line) and any(kept.strip() for kept in out):
            out.append(line)  # dropped with the other mobile signatures (drop_mobile_signature)
            break
        span = splitter_at(lines, index)
        if span:
            rest = lines[index + span :]
            if not any(kept.strip() for kept in out) or _answers_inline(rest):
                # Nothing above (the attribution or the header block opens the mail) or inline answers below:
                # only the splitter goes.
                index += span
                continue
            out = _end_of_reply(out)
            break
        out.append(line)
        index += 1
    return "\n".join(out)


def split_forward(text: str) -> tuple[str, str]:
    """(The sender's own text, the forwarded message from its marker line on, or "")."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if _FORWARD.match(line):
            return "\n".join(lines[:index]), "\n".join(lines[index:]).strip()
    return text, ""


def drop_mobile_signature(lines: list[str]) -> list[str]:
    """Lines without a trailing "Sent from my iPhone" (and its localised forms)."""
    out = list(lines)
    while out and not out[-1].strip():
        out.pop()
    if out and _MOBILE.match(out[-1]):
        out.pop()
    return out


def is_signature_line(line: str) -> bool:
    return bool(_SIGNATURE.match(line))
