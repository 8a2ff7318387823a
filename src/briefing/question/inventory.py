"""What an inventory question asks for: the work items whose state as of now has the fields it names.

"Which critical bugs are still open?", "How many open bugs are there?", "What went into release 6.2.1?", "Which
Android tickets are unresolved?", "Which high-priority tickets are assigned to Hans?", "Which bugs did Ewan report
that are still open?": a set of items picked by their state (open or done), type, priority, fix version, assignee,
reporter and the words of their components or labels, not a sentence that happens to rank first. The question's
words are read here; which of its leftover words name a component or a label is known only from the workspace's
items (`briefing.ask.inventory`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from briefing.question.constraints import Constraints
from briefing.question.listings import assigned_to
from briefing.question.terms import GENERIC, content_words
from briefing.question.words import NOBODY

# Question text: the opening of a question that asks for a set or a count ("Which ...", "List the ...", "How
# many ...", "Are there any ...", "Do we have any ...").
_OPENING = re.compile(
    r"^\W*(?:which|what|list|count|show(?:\s+me)?|give\s+me|how\s+many|are\s+there(?:\s+still)?(?:\s+any)?|any|"
    r"do\s+we\s+(?:still\s+)?have(?:\s+any)?)\b",
    re.I,
)
# Question text: a noun for work items of a tracker or a code host, singular or plural.
ITEMS = (
    r"(?:tickets?|issues?|bugs?|tasks?|sub-?tasks?|stories|story|epics?|improvements?|features?|items?|prs?|"
    r"pull\s+requests?)"
)
ITEM_NOUN = re.compile(rf"\b{ITEMS}\b", re.I)
# Question text: the same nouns in the plural, which make it a question about a set ("Which open issue tracks X?"
# asks for one item, a fact).
_ITEMS_PLURAL = re.compile(
    r"\b(?:tickets|issues|bugs|tasks|sub-?tasks|stories|epics|improvements|features|items|prs|pull\s+requests)\b", re.I
)
# Question text: an item type named by the question ("bugs", "stories", "pull requests"); "tickets" and "items"
# name no type, and "issues" only on a code host, where an issue is not a pull request (`briefing.ask.inventory`).
ITEM_TYPE = re.compile(
    r"\b(bug|stor(?:y|ies)|task|sub-?task|epic|improvement|feature|issue|prs?|pull\s+requests?)s?\b", re.I
)
# Question text: asks for items not done yet ("open", "unresolved", "still in progress", "not fixed yet").
_OPEN = re.compile(
    r"\b(?:open|unresolved|outstanding|pending|remaining|unfixed|unfinished|in\s+progress|left|"
    r"not\s+(?:yet\s+)?(?:done|fixed|resolved|closed|finished|merged)(?:\s+yet)?)\b",
    re.I,
)
# Question text: asks for items done ("closed", "fixed", "merged", "went into a release"). "Fixed", "done",
# "finished", "completed", "shipped", "merged" and "went into" mean the work was done: an item closed as a duplicate
# or "won't fix" is not among them (`worked`).
_DONE = re.compile(r"\b(?:closed|resolved|fixed|done|finished|completed|merged|shipped|delivered|went\s+into)\b", re.I)
_WORKED = re.compile(r"\b(?:fixed|done|finished|completed|merged|shipped|delivered|went\s+into)\b", re.I)
# Question text: a priority as trackers name them, before an item noun ("critical bugs", "high-priority tickets",
# "blocker issues") or after the word "priority" ("tickets with priority High").
PRIORITIES = "blocker|critical|highest|high|medium|normal|low|lowest|major|minor|trivial"
_PRIORITY_BEFORE = re.compile(rf"\b({PRIORITIES})(?:[\s-]+priority)?\s+(?:[\w-]+\s+){{0,2}}?(?={ITEMS}\b)", re.I)
_PRIORITY_AFTER = re.compile(rf"\bpriority\s+(?:of\s+|is\s+|=\s*)?({PRIORITIES})\b", re.I)
# Question text: the most urgent items, by whatever name the tracker gives that priority ("top-priority bugs", "the
# most urgent open tickets").
_TOP_PRIORITY = re.compile(rf"\b(?:top[\s-]+priority|most\s+urgent)\s+(?:[\w-]+\s+){{0,2}}?{ITEMS}\b", re.I)
# Question text: the release the items are planned for or went into, named by a version the constraints read
# ("What went into release 6.2.1?", "What's in the 7.0.0 release?", "What was fixed in 6.3.0?").
_IN_RELEASE = re.compile(
    r"^\W*what(?:'s|\s+is|\s+are|\s+was|\s+were)?\s*(?:(?:has\s+)?(?:gone|went|got|shipped|fixed|included|planned|"
    r"targeted|scheduled|landed|delivered)\s+)?(?:in|into|for|at|with)\s+(?:the\s+)?(?:release\s+|version\s+)?v?\d",
    re.I,
)
# Question text: who reported the items ("reported by Ewan", "filed by Ewan", "did Ewan report"), who holds them
# ("assigned to Vijay Singh"); the name runs to the end of the clause.
_CLAUSE_END = r"(?=\s*[?.!,]|\s+(?:that|which|and|are|is|were|in|for|with)\b|$)"
_REPORTED_BY = re.compile(rf"\b(?:reported|filed|raised|created|opened|logged)\s+by\s+([\w.' -]+?){_CLAUSE_END}", re.I)
_ASSIGNED_TO = re.compile(rf"\bassigned\s+to\s+([\w.' -]+?){_CLAUSE_END}", re.I)
_DID_REPORT = re.compile(
    r"\b(?:did|has|have)\s+((?:[\w.'-]+\s+){1,3}?)(?:report|file|raise|open|log)(?:ed)?\b"
    # "the open tickets Ewan reported", "the bugs that Ewan filed" (not "the bugs that were reported")
    rf"|\b{ITEMS}\s+(?:that\s+)?(?!(?:that|which|who|were|was|are|is|have|has|had|been|got|get|we|you|they)\b)"
    r"((?:[\w.'-]+\s+){1,3}?)(?:reported|filed|raised|opened|logged)\b",
    re.I,
)
# Question text: asks for the items nobody holds ("unassigned", "with no assignee", "not assigned to anyone",
# "nobody is assigned to", "nobody has picked up").
_UNASSIGNED = re.compile(
    r"\b(?:unassigned|(?:with\s+)?no\s+assignee|without\s+(?:an?\s+)?(?:assignee|owner)|"
    r"not\s+(?:yet\s+)?assigned(?:\s+to\s+any(?:one|body))?|(?:nobody|no\s+one)\s+(?:is\s+|has\s+)?"
    r"(?:assigned|working\s+on|picked\s+up|owns?))\b",
    re.I,
)
# Question text: asks for the items under another one, an epic or a parent ("sub-tasks of", "children of", "in the
# epic", "make up the epic", "belong to the epic", "part of the parent").
_WITHIN = re.compile(
    r"\b(?:(?:sub-?tasks?|child(?:ren)?|child\s+(?:issues|tickets|items))\s+(?:of|under|in|for)\b|"
    r"(?:in|under|within|inside|of|belong(?:s|ing)?\s+to|part\s+of|make(?:s)?\s+up|making\s+up|linked\s+to|"
    r"grouped\s+under)\s+(?:the\s+|this\s+|that\s+|its\s+)?(?:epic|parent)\b)",
    re.I,
)
# Question text: a count asked for ("How many open bugs are there?", "What's the number of open bugs?", "Count the
# open bugs."): the listing's count answers it.
_HOW_MANY = re.compile(
    r"^\W*(?:how\s+many|what(?:'s|\s+is)\s+the\s+(?:number|count|total)\s+of|count\s+(?:the\s+|all\s+|our\s+)?)\b", re.I
)
# Question text: the words of the question's own shape, which say nothing about which items are meant.
_SHAPE_WORDS = content_words(
    "which what list show give many how number count total any there still currently right now yet today have has "
    "had we our us you the team all every open unresolved outstanding pending remaining unfixed unfinished "
    "progress left closed resolved fixed done finished completed merged shipped delivered went gone got into "
    "included planned targeted scheduled landed release releases version versions fix priority assigned assignee "
    "reported reporter filed raised created opened logged by state status currently ticket tickets issue issues "
    "bug bugs task tasks subtask sub-task sub-tasks story stories epic epics improvement improvements feature "
    "features item items pr prs pull request requests work tracked tracker label labels labelled labeled tagged "
    "marked component components type types kind unassigned nobody without owner owns picked top most urgent "
    + PRIORITIES.replace("|", " ")
)


# The words that put items under a parent ("belong to", "make up", "part of"), which are not its title's.
_UNDER_WORDS = content_words("belong belongs belonging make makes making made part parent child children under")


@dataclass(frozen=True)
class InventoryAsked:
    """The items an inventory question asks for: `state` "open", "done" or "" (any); `worked` when done means the
    work was done (a duplicate is not fixed); the item types, priorities and versions named; the assignee and
    reporter as written (or ""); `unassigned` for items nobody holds; `count` for "how many"; `words`, the
    question's other content words (a component or a label's name, or what the items are about)."""

    state: str = ""
    worked: bool = False
    types: tuple[str, ...] = ()
    priorities: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    assignee: str = ""
    reporter: str = ""
    unassigned: bool = False
    count: bool = False
    words: tuple[str, ...] = ()
    within: str = ""
    within_title: tuple[str, ...] = ()

    @property
    def narrowed(self) -> bool:
        """Whether anything besides the assignee picks the items (else "What is Dana working on?" is the plain
        listing of their open work)."""
        picked = self.priorities or self.versions or self.reporter or self.count or self.within or self.within_title
        return bool(picked or self.state == "done")


def _type_of(word: str) -> str:
    low = " ".join(word.lower().split()).replace("-", "")
    if low.startswith(("pr", "pull")):
        return "pull"
    return "story" if low.startswith("stor") else low.removesuffix("s")


def _person(raw: str, constraints: Constraints) -> str:
    """A person as the question writes them, or the person the constraints resolved it to."""
    raw = " ".join(raw.split())
    if not raw or raw.lower() in NOBODY:
        return ""
    for person in constraints.people:
        if set(raw.lower().split()) & set(person.lower().split()):
            return person
    return raw


def inventory_asked(question: str, constraints: Constraints) -> InventoryAsked | None:
    """The reading of an inventory question (module docstring), or None for any other question: one that names
    a period (the finished and records listings read those), an item by key, or no field to pick items by."""
    text = question.strip()
    within = _within_key(text, constraints)
    if constraints.time is not None or constraints.prs or (constraints.tickets and not within):
        return None
    under = _WITHIN.search(text)
    in_release = bool(constraints.versions) and bool(_IN_RELEASE.match(text))
    how_many = bool(_HOW_MANY.match(text))
    listed = _ITEMS_PLURAL.search(text) or how_many or within or under
    if not in_release and not (_OPENING.match(text) and listed):
        return None
    opened = _OPEN.search(text)
    done = None if opened else _DONE.search(text)
    state = "open" if opened else ("done" if done or in_release else "")
    priorities = tuple(
        dict.fromkeys(m[1].lower() for m in (*_PRIORITY_BEFORE.finditer(text), *_PRIORITY_AFTER.finditer(text)))
    )
    if not priorities and _TOP_PRIORITY.search(text):
        priorities = ("highest",)  # the most urgent priority the items have (`briefing.ask.inventory`)
    reported = _REPORTED_BY.search(text) or _DID_REPORT.search(text)
    reporter = _person(next(g for g in reported.groups() if g), constraints) if reported else ""
    unassigned = bool(_UNASSIGNED.search(text))
    held = "" if unassigned else assigned_to(text) or (m[1] if (m := _ASSIGNED_TO.search(text)) else "")
    assignee = _person(held, constraints) if not reporter else ""
    if not assignee and not reporter and not unassigned and constraints.people:
        # "Dana's open tickets" are assigned to Dana; a person in any other role ("Which bugs did Dana comment on?")
        # is not a field of the items' state. Question text: the person's first name with a possessive "'s".
        owners = [p for p in constraints.people if re.search(rf"\b{re.escape(p.split()[0])}\S*'s\b", text, re.I)]
        if not owners:
            return None
        assignee = owners[0]
    if not state and (assignee or unassigned):
        state = "open"  # "Which tickets are assigned to Dana?": the work they hold now, as the assigned listing has it
    words = _other_words(text, constraints, (assignee, reporter))
    if within:
        words = tuple(w for w in words if w not in content_words(within.replace("-", " ")) | {within.lower()})
    types = tuple(dict.fromkeys(_type_of(m[0]) for m in ITEM_TYPE.finditer(text)))
    titled = bool(under) and not within
    if within or titled:
        # The noun of the parent ("the epic") and "sub-tasks", which says only that they are under it, pick no type.
        types = tuple(t for t in types if t not in {"epic", "subtask"})
    asked = InventoryAsked(
        state=state,
        worked=bool(done and _WORKED.search(text)) or in_release,
        types=types,
        priorities=priorities,
        # A parent named by its title: its words, versions included ("the epic for dropping Windows 8.1"), name it.
        versions=() if titled else tuple(constraints.versions),
        assignee=assignee,
        reporter=reporter,
        unassigned=unassigned,
        count=how_many,
        words=() if titled else words,
        within=within,
        within_title=(*(set(words) - _UNDER_WORDS), *(v.lower() for v in constraints.versions)) if titled else (),
    )
    picked = asked.priorities or asked.versions or asked.assignee or asked.reporter or asked.unassigned or asked.count
    if not (asked.state or picked or asked.within or asked.within_title):
        return None
    return asked


def _within_key(text: str, constraints: Constraints) -> str:
    """The key of the one item a question asks the items under ("sub-tasks of PLAT-7", "in epic PLAT-7"), or ""."""
    if len(constraints.tickets) != 1:
        return ""
    key = constraints.tickets[0]
    # Question text: the key after a word that puts items under it, with the parent's noun ("in epic PLAT-7",
    # "under the parent PLAT-7") or after a plural item noun ("Which stories are in PLAT-7?"; "What was said in
    # PLAT-7?" asks what its conversation says).
    noun = r"(?:epic|parent|story)\s+" if not _ITEMS_PLURAL.search(text) else r"(?:(?:epic|parent|story)\s+)?"
    # "Linked to", "related to" and "duplicates of" PLAT-7 are links, not parents.
    places = r"in|under|within|inside|part\s+of|makes?\s+up|belong(?:s|ing)?\s+to"
    under = re.search(rf"\b(?:{places})\s+(?:the\s+)?{noun}{re.escape(key)}\b", text, re.I)
    return key if under is not None or _WITHIN.search(text) else ""


def _other_words(text: str, constraints: Constraints, people: tuple[str, ...]) -> tuple[str, ...]:
    """The question's content words that are not its shape, a version or a person asked about."""
    said = content_words(text) - _SHAPE_WORDS - GENERIC
    # A hyphenated word made of shape words ("high-priority") is shape too.
    said = {w for w in said if not ("-" in w and content_words(w.replace("-", " ")) <= _SHAPE_WORDS)}
    names = content_words(" ".join((*people, *constraints.people)))
    versions = {v.lower().lstrip("v") for v in constraints.versions}
    return tuple(sorted(w for w in said - names if w.lstrip("v") not in versions))


# Question text: who holds the most items ("Who has the most open bugs?", "Who owns the most tickets?", "Who is
# carrying the most work?") or how many each person holds ("How many open tickets does each person have?"); group
# "rest" or "each": the items as worded.
_MOST_HELD = re.compile(
    r"^\W*(?:who\s+(?:has|holds|owns|carries|is\s+(?:carrying|holding|assigned))\s+(?:the\s+)?most\s+(?P<rest>[^?]*)"
    r"|how\s+many\s+(?P<each>[^?]*?)\s+(?:does|do)\s+(?:each|every)\s+(?:person|one|engineer|developer|assignee|"
    r"(?:team\s+)?member)\s+(?:have|hold|own))",
    re.I,
)


# Question text: work as a mass noun ("the most work", "the most open work").
_WORK = re.compile(r"\bwork\b", re.I)


def most_held(question: str, constraints: Constraints) -> InventoryAsked | None:
    """ "Who has the most open bugs?": the inventory of the items named ("open bugs"; "work" or no noun: items),
    open unless the question says otherwise, to be counted by assignee; None for any other question."""
    m = _MOST_HELD.search(question.strip())
    if m is None or constraints.time is not None:
        return None
    said = " ".join((m["rest"] or m["each"] or "").split())
    if not ITEM_NOUN.search(said):
        if not _WORK.search(said):
            return None  # "Who has the most context on X?" asks for no items
        said = _WORK.sub("items", said)
    asked = inventory_asked(f"Which open {said} are there?", constraints) or InventoryAsked()
    types = asked.types or tuple(dict.fromkeys(_type_of(t[0]) for t in ITEM_TYPE.finditer(said)))
    return replace(asked, state="done" if _DONE.search(said) else "open", types=types, count=False)
