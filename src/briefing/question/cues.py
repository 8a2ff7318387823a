"""What a question's wording says about which evidence answers it: the report or the reply, the newest, a denial."""

from __future__ import annotations

import re

# "What was asked in #discussions about ...?": the asking message is the answer, not a question to pass over.
_ASKS_ABOUT_ASKING = re.compile(r"\b(?:asked|ask|asks|asking|question(?:ed|s)?|inquir\w*|enquir\w*)\b", re.I)
# "the newcomer who asked to take #649": asking that only says who someone is, not what the question is about.
_ASKER_CLAUSE = re.compile(r"\b(?:who|that)\s+(?:had\s+|has\s+)?(?:asked|asks|inquired|enquired)\b", re.I)


def asks_about_asking(question: str) -> bool:
    """Whether the question is about what was asked ("What was asked in #help about ...?", "What did Ana ask?"),
    not about what someone who asked was told ("which issues were offered to the newcomer who asked to take #649?")."""
    return bool(_ASKS_ABOUT_ASKING.search(_ASKER_CLAUSE.sub(" ", question)))


# A question about what was reported ("What problem was raised yesterday?", "What did users complain about?").
_ASKS_ABOUT_REPORT = re.compile(
    r"\b(?:raised|reported|reporting|complain(?:ed|s|ing|ts?)?|ran\s+into|run\s+into|brought\s+up|flagged)\b", re.I
)
# A question that asks for the cause, the fix or the advice ("Why did ...", "What was recommended ...", "which
# setting had to be raised", "What came of ...", "What was done about ...") is answered by a reply, never by the
# report it replies to.
_ASKS_FIX = re.compile(
    r"\b(?:why|fix(?:es|ed)?|solution|solved?|workaround|recommend\w*|suggest\w*|advi[cs]\w*|resolv\w*|"
    r"caus(?:e|ed|es|ing)|reason|turned\s+out|had\s+to|came\s+of|done\s+about|clears?|cure[ds]?|remed\w*|"
    r"answers|answered|replies|replied|responses|responded)\b"
    # "How come X broke?", "What was behind X?": the cause, asked in other words
    r"|\bhow\s+come\b|\bwhat(?:'s|\s+was|\s+is|\s+were|\s+are)\s+behind\b",
    re.I,
)


def asks_report(question: str) -> bool:
    """Whether the question asks what was reported ("What problem was raised ...?"), not how it was fixed."""
    return bool(_ASKS_ABOUT_REPORT.search(question)) and not _ASKS_FIX.search(question)


def asks_fix(question: str) -> bool:
    """Whether the question asks for the cause, the fix or the advice."""
    return bool(_ASKS_FIX.search(question))


# "How was X handled?", "What happened with X?" (and "What was done about X?", which `_ASKS_FIX` reads first):
# what came of one problem, answered in the conversation about it (a fix question without a fix word).
_ASKS_OUTCOME = re.compile(
    r"\bwhat\s+(?:was|were|has\s+been|had\s+been|is\s+being|got)\s+done\s+(?:about|with|for|to)\b|"
    r"\bhow\s+(?:was|were|is|are|has|have|had)\b.*\b(?:handled|addressed|dealt\s+with|tackled|sorted(?:\s+out)?)\b|"
    r"\bwhat\s+(?:ever\s+)?(?:happened|has\s+happened)\s+(?:with|to)\b",
    re.I,
)
# "How do I X?", "How can X be done?", "How to X?": advice on one task.
_ASKS_HOWTO = re.compile(
    r"\bhow\s+(?:do|does|can|could|should|would|might)\s+(?:i|we|you|one|someone|people|users?)\b|"
    r"\bhow\s+(?:can|could|should|would|might|is|are)\b.*\bbe\s+(?:done|\w+ed)\b|\bhow\s+to\b",
    re.I,
)
# "What was the feedback on X?", "What did reviewers say about X?", "How did people react to X?", "What were the
# reactions to X?", "Did anyone reply to X?": the replies to one proposal (a patch, a PR, a post). Not "the response
# to the outage", which is what was done.
_OTHERS = r"(?:the\s+)?(?:reviewers?|maintainers?|people|others|folks|everyone|the\s+team|the\s+list|upstream)"
FEEDBACK_ASKED = (
    r"\bfeedback\b|\b(?:reception|review\s+comments?|reactions?)\s+(?:on|to|for|of)\b|"
    rf"\bwhat\s+did\s+{_OTHERS}\s+(?:say|think|comment|reply|respond|suggest)\b|"
    rf"\bhow\s+did\s+{_OTHERS}\s+(?:react|respond|reply|take\s+it)\b|"
    r"\bwhat\s+(?:responses|replies|reactions)\s+did\b|\bdid\s+any(?:one|body)\s+(?:reply|respond|answer|react)\b"
)
_ASKS_FEEDBACK = re.compile(FEEDBACK_ASKED, re.I)


# "Which release / version / build / tag added X?", "What version first shipped X?", "Which build fixed X?": the release
# that brought one change, answered by the line that names the change (not "Which PR added X?", not "What is the
# latest version?", not "Which Cassandra version does X support?", a dependency's version, not "Summarize what the
# 0.9 releases added").
_ASKS_RELEASE = re.compile(
    r"\b(?:which|what)\s+(?!(?:the|a|an|this|that|these|those)\b)(?:[\w.-]+\s+){0,4}?(?:releases?|versions?|builds?|tags?|snapshots?)\b.*?"
    r"(?:\b(?:added|introduced|fixed|started|shipped|brought|landed|included|carried|enabled|supported|resolved)\b|"
    r"(?<!\bdo\s)(?<!\bdoes\s)\b(?:adds|introduces|fixes|ships|brings|supports|enables)\b|"
    r"\bfirst\s+(?:let|had|made|allowed|gave)\b)",
    re.I,
)


def asks_release(question: str) -> bool:
    """Whether the question asks which release did one change ("Which release added X?"), not the latest state or a
    pull request."""
    return bool(_ASKS_RELEASE.search(question)) and not asks_latest(question) and not asks_pull(question)


def aboutness_class(question: str) -> str:
    """The kind of question answered only inside the conversation about its subject: "release" (which release did
    one change), "fix" (the cause, the fix or the advice), "outcome" (what was done about it), "howto" (how to do
    it), "feedback" (what reviewers said about a proposal); "" for any other question."""
    if asks_release(question):  # "Which build fixed X?" is a release question (a fix one where release is off)
        return "release"
    if _ASKS_FIX.search(question):  # first, so that "What did reviewers say about <Fix ...>?" stays a fix question
        return "fix"
    if _ASKS_FEEDBACK.search(question):
        return "feedback"
    if _ASKS_OUTCOME.search(question):
        return "outcome"
    if _ASKS_HOWTO.search(question):
        return "howto"
    return ""


# "Which PR added X?", "Where is the pull request for X?", "Is there a PR for X?" are answered by a pull request
# ("What PR did Ana raise, and what does it change?" asks for what she said about it as well).
PULL_ASKED = (
    r"\bwhich\s+(?:\w+\s+)?(?:prs?|pull\s+requests?)\b|\bwhere\s+(?:is|are)\s+(?:the\s+)?(?:prs?|pull\s+requests?)\b"
    r"|\b(?:is|was)\s+there\s+(?:a|an|any)\s+(?:open\s+)?(?:prs?|pull\s+requests?)\b"
)
_ASKS_PULL = re.compile(PULL_ASKED, re.I)


def asks_pull(question: str) -> bool:
    return bool(_ASKS_PULL.search(question))


# "Who posts / announced / asked / shared ...": the act is the message itself, so its author answers.
_ASKS_POSTER = re.compile(
    r"^\W*who\s+(?:usually\s+|first\s+)?(?:posts?|posted|announces?|announced|asks?|asked|shares?|shared)\b", re.I
)


def asks_poster(question: str) -> bool:
    return bool(_ASKS_POSTER.search(question))


# Question text: who answered or helped with something asked ("Who answered the question about X?", "Who helped Ana
# with the build error?", "Who replied to ...?", "Who commented on ...?", "Who weighed in on ...?", "Who explained why
# ...?", "Who figured out ...?", "Who had the answer to ...?"): the one who replied, not the asker.
_ASKS_ANSWERER = re.compile(
    r"^\W*who\s+(?:\w+\s+)?(?:answered|helped|replied|responded|commented|weighed\s+in|chimed\s+in|explained|"
    r"solved|suggested\s+a\s+fix|"
    r"figured\s+(?:out|it\s+out)|(?:had|knew|gave)\s+(?:the|an)\s+answer)\b",
    re.I,
)


def asks_answerer(question: str) -> bool:
    return bool(_ASKS_ANSWERER.search(question))


# "Latest state" questions that the constraint extractor files under another intent ("the newest version").
_ASKS_LATEST = re.compile(r"\b(?:newest|latest|most\s+recent|current(?:ly)?|now|still|stand(?:s)?\s+now)\b", re.I)
# "the most recent tag / build / chart": a thing whose values are versions, though the question does not say
# "version".
_VERSIONED = re.compile(r"\b(?:tags?|releases?|versions?|charts?|builds?)\b", re.I)


def asks_latest(question: str) -> bool:
    return bool(_ASKS_LATEST.search(question))


def latest_kind(question: str, kind: str) -> str:
    """The value a latest-state question asks for: its answer kind, or a version for a tag, release or build."""
    return "version" if not kind and _VERSIONED.search(question) else kind


# A negation word, as questions and sources write it ("not", "isn't", "no longer", "unsupported").
NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|can't|can’t|isn't|isn’t|doesn't|doesn’t|don't|don’t|won't|won’t|aren't|wasn't|"
    r"weren't|haven't|hasn't|unsupported|impossible|no\s+longer)\b",
    re.I,
)


def negated(question: str) -> bool:
    """Whether a yes / no question is asked in the negative ("Isn't the worker supported on Fargate?")."""
    return bool(NEGATION.search(question))


def asks_still(question: str) -> bool:
    """Whether the question asks if something still holds ("Is the export still failing?")."""
    return bool(re.search(r"\bstill\b", question.lower()))
