"""What a question about one ticket or pull request asks of its fields and roles: a pattern per field.

Read by `question.kind` (which fields a question asks) and `ask.described` (the words left once the field asked is
taken out are what the item is about).
"""

from __future__ import annotations

import re

from briefing.question.asked import PEOPLE_ASKED, WORKING_ON
from briefing.question.words import ITEM_NAMED, STANDS

# What a question about one named ticket or pull request asks of its fields (`briefing.ask.fields`), each
# pattern a way English asks for that field or role; read only when the question names a key or PR number. "who"
# also reads as the contraction "who's" ("Who's assigned to PLAT-142?", "Who's reviewed #57?") and as a people noun
# ("Which people reviewed #57?", `asked.PEOPLE_ASKED`).
FIELD_ASKS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern.replace(r"\bwho\s+", rf"\b(?:who(?:'s)?|{PEOPLE_ASKED})\s+"), re.I))
    for name, pattern in (
        ("changes", r"\bwho\s+(?:\w+\s+){0,2}?requested\s+changes\b"),
        ("approver", r"\bwho\s+(?:\w+\s+){0,2}?(?:approved|acked)\b|\bwhich\s+reviewers?\s+approved\b"),
        ("tester", r"\bwho\s+(?:\w+\s+){0,2}?tested\b"),
        ("reviewer", r"\bwho\s+(?:\w+\s+){0,2}?(?:reviewed|reviews|is\s+reviewing|reviewing)\b|\bwhich\s+reviewers?\b"),
        ("merger", r"\bwho\s+(?:\w+\s+){0,2}?merged\b|\bwho\s+merged\b|\bmerged\s+it\b"),
        (
            "assignee",
            r"\bwho\s+(?:\w+\s+){0,2}?(?:assigned|owns|owner|is\s+responsible|is\s+working\s+on)\b"
            r"|\bwho(?:'s|\s+is|\s+was)\s+(?:doing|handling|taking\s+care\s+of|in\s+charge\s+of|working\s+on|"
            r"looking\s+(?:into|at)|fixing|tackling|driving)\b|\bwho\s+(?:picked\s+up|took\s+(?:on|over))\b"
            # "Who worked on / looked into / handled X?": who held it, as of now.
            r"|\bwho\s+(?:worked\s+on|looked\s+into|handled|took\s+care\s+of|tackled)\b"
            rf"|\bwho(?:'s|\s+is|\s+was|\s+has)\s+(?:on\s+)?(?={ITEM_NAMED})"
            r"|\bwho\s+is\s+\S+\s+assigned\s+to\b|\bassignee\b|\bwho\s+is\s+it\s+assigned"
            # "Whose ticket is X?": the one who holds it now (a pull request's is its author's).
            r"|^\W*whose\s+(?:ticket|bug|issue|task|story)\s+is\b"
            rf"|\b{PEOPLE_ASKED}\s+(?:are|is|were|was)\s+(?:{WORKING_ON})\b",
        ),
        (
            "reporter",
            r"\bwho\s+(?:\w+\s+){0,2}?(?:reported|filed|raised|opened|created|wrote|authored|sent|posted|submitted)\b"
            r"|\breporter\b",
        ),
        ("organiser", r"\bwho\s+(?:\w+\s+){0,2}?(?:organi[sz]ed|organi[sz]es|scheduled)\b|\borgani[sz]er\b"),
        (
            "fix_version",
            r"\bfix\s+versions?\b|\b(?:which|what)\s+(?:release|version)s?\s+(?:is|was|will)\s+(?:\S+\s+){0,24}?"
            r"(?:be\s+)?(?:fixed|shipped|ship|land)\s+in\b|\bwhich\s+(?:release|version)s?\s+is\s+it\s+fixed\b"
            # "What version has the fix for X?"
            r"|\b(?:which|what)\s+(?:release|version)s?\s+(?:has|have|had|contains?|includes?|gets?)\s+the\s+fix\b"
            # "When will the fix for X be released?": the release it is set to ship in.
            r"|\bwhen\s+(?:will|does|did|is|was)\s+the\s+(?:fix|ticket|bug|issue)\b[^?]{0,160}?\b(?:be\s+)?"
            r"(?:released|shipped|ship|land(?:ed)?|go(?:ne)?\s+out)\b",
        ),
        # Who did the fix: "Who fixed PLAT-7?", "Who fixed the login crash?", "Who made the fix for X?".
        ("fixer", r"\bwho\s+(?:\w+\s+){0,2}?fixed\b|\bwho\s+(?:made|wrote|did|shipped)\s+the\s+fix\b"),
        # Who ended it: "Who resolved PLAT-7?", "Who closed the ticket about X?".
        ("resolver", r"\bwho\s+(?:\w+\s+){0,2}?(?:resolved|closed)\b"),
        # Who reopened it and when: "Who reopened PLAT-7?", "When was PLAT-7 reopened?" (not why: a cause question).
        (
            "reopened",
            r"\bwho\s+(?:\w+\s+){0,2}?re-?opened\b"
            r"|\b(?:when|what\s+(?:day|date)|on\s+which\s+day)\s+(?:was|were|did)\s+(?:\S+\s+){1,24}?"
            r"(?:get\s+|got\s+|been\s+)?re-?open(?:ed)?\b",
        ),
        ("resolution", r"\bresolution\b"),
        # Its latest comment, who wrote it or when: "Who last commented on PLAT-7?", "Who was the last to reply on
        # #57?", "When was the last comment on PLAT-7?", "What was the most recent comment on PLAT-7?".
        (
            "last_comment",
            r"\b(?:who|when)\b[^?]{0,30}?\blast\s+(?:to\s+)?(?:comment(?:ed)?|repl(?:y|ied)|respond(?:ed)?|wrote)\b"
            r"|\bwho\s+(?:commented|replied|responded|wrote)\s+last\b"
            r"|\b(?:last|latest|most\s+recent|newest)\s+(?:comment|reply|response)\b",
        ),
        # What the item is about, as its opener described it: "What is PLAT-7 about?", "What's #690 about?", "Tell me
        # about PLAT-7", "What does PLAT-7 cover?" (the whole question; "What is the ticket about X?" names an item).
        (
            "about",
            r"^\W*what(?:'s|\s+is|\s+was)\s+(?:\S+\s+){1,4}?about\W*$|^\W*tell\s+me\s+(?:more\s+)?about\s+\S+\W*$"
            r"|^\W*what\s+(?:does|did)\s+(?:\S+\s+){1,4}?(?:cover|describe|concern)\W*$",
        ),
        # The day an item was created: "When was PLAT-7 created?", "What day was the bug about X filed?".
        (
            "created",
            r"\b(?:when|what\s+(?:day|date)|on\s+which\s+day)\s+(?:was|were|did)\s+(?:\S+\s+){1,24}?"
            r"(?:first\s+)?(?:created|opened|filed|reported|raised|logged|create|open|file|report|raise|log)\b",
        ),
        ("components", r"\bcomponents?\b"),
        ("type", r"\b(?:what|which)\s+(?:issue\s+|ticket\s+)?type\b|\btype\s+of\s+(?:issue|ticket|item)\b"),
        # The day an item reached its end: "When was the ticket about X resolved?", "When did PR #57 get merged?".
        (
            "resolved",
            r"\b(?:when|what\s+(?:day|date)|on\s+which\s+day)\s+(?:was|were|did)\s+(?:\S+\s+){1,24}?(?:get\s+|got\s+|been\s+)?"
            r"(?:resolved|closed|fixed|merged|resolve|close|fix|merge)\b",
        ),
        ("sprint", r"\bsprints?\b"),
        ("milestone", r"\bmilestone\b"),
        ("priority", r"\bpriority\b"),
        ("labels", r"\blabels?\b"),
        # How an item is doing as a whole ("Where does the ticket about X stand?", "How is PLAT-7 going?": `STANDS`,
        # matched before the item is named): its state and its latest word.
        (
            "standing",
            rf"{STANDS}"
            # "Any updates on X?", "What's the latest on X?" (asked with a period, a briefing: `kind.read`)
            r"|\bany\s+(?:news|updates?)\s+(?:on|about|for|with)\b|\bwhat(?:'s|\s+is)\s+the\s+latest\s+(?:on|with|about)\b",
        ),
        (
            "status",
            r"\b(?:status|state)\b|\bis\s+(?:\S+\s+){1,20}?still\s+(?:open|in\s+progress)\b"
            r"|\b(?:is|was|has)\s+(?:\S+\s+){1,3}?(?:ever\s+|been\s+|already\s+)?"
            r"(?:open|closed|resolved|done|merged)(?:\s+yet)?\s*\?",
        ),
    )
)
