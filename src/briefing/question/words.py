"""The word lists and word patterns that question detection reads: intents, answer kinds, names and dates."""

from __future__ import annotations

import re

from briefing.textrules import TICKET_KEY

# -- intents (`briefing.question.constraints`) ----------------------------------------------------------------------
INTENTS = ("what_happened", "summary", "latest", "who", "when", "fact")

# Question text: what a summary gives, named as what is asked for ("the main points", "the key takeaways"): the
# summary's shape, not its topic.
SUMMARY_SHAPE = re.compile(
    r"\b(?:main|key|major|important)\s+(?:points?|arguments?|themes?|highlights?|concerns?|takeaways?)\b", re.I
)

# Question text: how something stands now, asked as "Where does X stand?" or "How is X going?" ("going to" speaks of
# a plan, not of how it goes); matched at "where" / "how", before what it asks about is named.
STANDS = (
    r"\bwhere\s+(?:does|do|did|is|are)\b(?=[^?]{0,160}?\bstand(?:s|ing)?\b)"
    r"|\bhow(?:'s|\s+is|\s+are)\b(?=[^?]{0,160}?\b(?:going(?!\s+to\b)|coming\s+along|progressing)\b)"
)

# Question text: the intent its words ask for, first match wins; "Where does X stand?" and "Where are we with X?"
# ask how X stands now. A summary is asked for by name ("summarize", "recap") or by what it gives: the main points,
# the takeaways, the gist of something, or what was discussed in it.
INTENT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("summary", re.compile(r"\b(?:summari[sz]e|summary|recap|digest|overview|tl;?dr|brief\s+me|gist|takeaways?)\b|"
                           rf"{SUMMARY_SHAPE.pattern}|"
                           r"^\W*what\s+(?:was|were|got|has\s+been|have\s+been)\s+discussed\s+(?:in|on|under|about)\b",
                           re.I)),
    (
        "what_happened",
        re.compile(
            r"\bwhat(?:'s|\s+is|\s+has)?\s+(?:happened|happening|changed|new|going\s+on)\b|\bwhat\s+went\b|"
            r"\bupdates?\s+(?:on|about|for)\b|\bstatus\s+(?:of|on)\b|\bprogress\s+(?:on|of)\b|\bany\s+news\b|"
            r"\bwhat\s+did\s+(?:we|the\s+team)\s+(?:do|ship|work\s+on)\b",
            re.I,
        ),
    ),
    ("who", re.compile(r"^\W*(?:who|whom|whose)\b|\bwho(?:'s|\s+(?:is|was|did|owns|made|wrote|said|"
                       r"approved|merged|reviewed|decided|knows|worked|will))\b", re.I)),
    ("when", re.compile(r"^\W*when\b|\bwhen\s+(?:did|was|is|were|will|does|do)\b|\bwhat\s+(?:date|time|day)\b"
                        r"|\bhow\s+long\s+ago\b", re.I)),
    ("latest", re.compile(r"\b(?:latest|newest|current(?:ly)?|now|still|most\s+recent|as\s+of\s+today)\b|"
                          rf"{STANDS}|\bwhere\s+(?:are\s+we|things\s+stand)\b",
                          re.I)),
)  # fmt: skip

# "What was announced in #announcements last week?": a period and a place, nothing else asked about. It is a
# briefing over the window ("what happened"), not a fact to look up; "What was released for the Workers
# component yesterday?" names its topic and stays a fact question. A person's week is asked the same ways: "What
# did Dana work on last week?", "What was Dana doing last week?", "What has Dana been busy with this week?", "What
# did Dana get up to last week?".
PERIOD_VERB = re.compile(
    r"^\W*what\s+(?:(?:was|were|got|has\s+been|have\s+been)\s+(?:announced|released|shipped|launched|posted|shared|"
    r"discussed|decided)|(?:did|has|have|had)\s+[^?]+?\s+(?:do|done|been\s+doing|work(?:ed)?\s+on|"
    r"been\s+working\s+on|ship(?:ped)?|post(?:ed)?|been\s+busy\s+with|get\s+up\s+to|been\s+up\s+to)"
    r"|(?:was|were)\s+[^?]+?\s+(?:doing|working\s+on|busy\s+with|up\s+to))\b",
    re.I,
)
SCOPE_WORDS = frozenset(
    "in on at the a during over across from within by our we channel channels team there any anything else".split()
)
# The question word and auxiliary verbs a briefing question's opening leaves behind ("What has been going on with
# X", "What's been happening with X"): never its topic.
AUXILIARIES = frozenset("what what's whats has have had been is are was were do does did 's".split())
# The words of the opening itself ("What did ... work on", "What has been announced").
OPENING_WORDS = frozenset(
    "what was were got has have had been did do done doing work worked working ship shipped post posted announced "
    "released launched shared discussed decided busy with".split()
)

# -- constraints --------------------------------------------------------------------------------------------------
# "only from JIRA", "just in #platform", "solely Alice's": the word after may be one modifier away.
HARD_BEFORE = re.compile(
    r"\b(?:only|just|exclusively|solely)\s+(?:(?:search(?:ing)?\s+)?(?:from|in|on|within|through|by)\s+)?"
    r"(?:the\s+|our\s+)?(?:[\w-]+\s+)?$",
    re.IGNORECASE,
)
HARD_AFTER = re.compile(r"^(?:'s)?(?:\s+[\w-]+)?\s+only\b", re.IGNORECASE)

# First names that are also ordinary words match only when capitalised, and not as a question's first word.
COMMON_WORD_NAMES = frozenset(
    "will may mark bill grace rose june april august hope joy faith sky summer art chase drew max pat sue ray "
    "rob jack frank amber ruby dawn iris guy page lane bob rich win tom penny dean major minor low high hunter".split()
)

# After these a source's noun word names the source ("in the files"); after any other word it is a modifier's
# noun ("delete files", "the Parquet file"): a thing in the question, not a place to search.
FUNCTION_WORDS = frozenset(
    "the a an our my your their its this that these those in on from of at within through across by any all some "
    "which what whose every only just".split()
)

# Asks who a person is (their role, job, start, who helps or manages them), which what others wrote about them
# answers, rather than what they did or said, which their own messages answer.
ABOUT_PERSON = re.compile(
    r"\b(?:roles?|jobs?|titles?|positions?|responsib\w*|in\s+charge|start(?:s|ed|ing)?|join(?:s|ed|ing)?|"
    r"background|reports?\s+to|manager|onboard\w*|who\s+is|who's|who\s+are)\b",
    re.I,
)

# Question text: an item named right after the verb ("the ticket about ...", "PLAT-7", "#57"): "Who is on PLAT-7?",
# "Who has the ticket about X?" ask for its assignee; "Who is on call?" does not.
ITEM_NAMED = rf"the\s+(?:ticket|issue|bug|task|story|pr|pull\s+request)\b|{TICKET_KEY.pattern}|#\d+\b"

# -- briefings and summaries (`briefing.question.kind`) -------------------------------------------------------------
# Question text: asking to be caught up ("What did I miss", "Fill me in on", "Give me the highlights of", "Anything
# interesting in", "What did people talk about"): the briefing's shape, never its topic.
CATCH_UP = re.compile(
    r"\bwhat\s+did\s+(?:i|we)\s+miss\b|\bfill\s+me\s+in\b|\b(?:give\s+me\s+)?(?:the\s+)?highlights?\b|"
    r"\banything\s+(?:interesting|important|notable|worth\s+knowing)\b|"
    r"\bwhat\s+(?:was|were|did)\s+(?:\w+\s+){0,2}?(?:talk(?:ed)?|chat(?:ted)?)\s+about\s*(?=[?.!]?$|\s(?:in|on|at|during|"
    r"since|this|last|yesterday|today|over)\b)",
    re.I,
)
# "What's new" asks for a briefing; "what new version came out" asks for a thing: "new" without "is" before it
# asks for one only when nothing but a place, a person or a period follows. A manager back from elsewhere asks for
# one too: "what did I miss", "fill me in", "the highlights", "anything interesting", "what did people talk about".
BRIEFING = re.compile(
    r"\bwhat(?:'s|\s+is|\s+has|\s+have)?\s+(?:happened|happening|changed|going\s+on|been\s+(?:going\s+on|happening))\b|"
    r"\bwhat(?:'s|\s+is|\s+has\s+been)\s+new\b|"
    r"\bwhat\s+new\b(?=\s*(?:[?.!,]|$|(?:in|with|on|about|for|at|since|this|last|today|yesterday|from|over)\b))|"
    r"\bwhat\s+went\s+on\b|\bany\s+(?:updates?|news|changes)\b|\banything\s+new\b|^\W*(?:updates?|news)\b|\brecap\b|"
    r"\bcatch\s+me\s+up\b|\bbrief\s+me\b|\bdigest\b|"
    rf"{CATCH_UP.pattern}|"
    r"\bsummar(?:y|ise|ize)\s+(?:of\s+)?(?:what\s+happened\s+)?(?:in\s+\S+\s+)?(?:the\s+)?"
    r"(?:last|this|past|previous|yesterday|today)\b",
    re.IGNORECASE,
)
# "What's planned / scheduled / coming up this week": a forward window (what is scheduled in it, entered before now).
PLANNED = re.compile(
    r"\bwhat(?:'s|\s+is|\s+are|\s+do\s+we\s+have|\s+have\s+we\s+got)?\s+"
    r"(?:planned|scheduled|coming\s+up|up\s+next|on\s+(?:the\s+|our\s+)?(?:calendar|agenda|schedule))\b|"
    r"\bupcoming\b|\bplans?\s+for\s+(?:this|next)\s+week\b",
    re.IGNORECASE,
)
PLAN_WORDS = re.compile(
    r"\b(?:what(?:'s)?|is|are|do|we|have|got|planned|scheduled|coming|up|next|upcoming|on|the|our|calendar|agenda|"
    r"schedule|plans?|for)\b",
    re.IGNORECASE,
)
BROAD = re.compile(
    # "summarize the discussion(s) / conversations / threads about Y": many conversations, by their own word.
    r"^\W*(?:please\s+|can\s+you\s+|could\s+you\s+)?summari[sz]e\s+(?:the\s+|all\s+(?:the\s+)?)?"
    r"(?:discussions?|conversations?|threads?|chatter|talk|feedback)\s+(?:about|on|around|of|regarding)\b|"
    r"\bwhat\s+are\s+(?:the\s+)?(?:main|common|biggest|top|recurring|most\s+common|typical|usual)\s+"
    r"(?:problems?|issues?|complaints?|pain\s+points?|questions?|themes?|difficulties)\b|"
    r"\bwhat\s+(?:problems?|issues?)\s+do\s+(?:users|people|customers)\s+(?:hit|have|run\s+into|face|report)\b",
    re.IGNORECASE,
)

# -- outcomes: "what was decided about X" is told how X ended, not how it began ------------------------------------
# Question text: asks for a conversation's outcome ("What was decided about X?", "What was the outcome of X?", "What
# came of X?"). Not "resolution": "With what resolution was X closed?" asks for the tracker's field.
ASKS_OUTCOME = re.compile(
    r"\bwhat\s+(?:was|were|has\s+been|have\s+(?:they|we|you)\s+|did\s+(?:they|we|you|people|the\s+\w+)\s+)?"
    r"\s*(?:decide|agree|conclude|settle)d?\b|\bwhat\s+was\s+the\s+(?:decision|consensus)\b|"
    r"\b(?:outcome|conclusion|verdict)\s+(?:of|on|for|about)\b|\bwhat\s+came\s+(?:out\s+)?of\b",
    re.IGNORECASE,
)

# -- outlines: a question about how things stand now is a latest-state answer, not an outline ---------------------
NOT_OUTLINE = re.compile(r"\b(?:stands?|standing|latest|newest|current(?:ly)?|now|still|so\s+far)\b", re.I)

# -- listings and meetings ------------------------------------------------------------------------------------------
# "which (engineering) blog posts came out", "what release notes were published", "which ADRs did we write".
DOCUMENT_KINDS = (
    r"blog\s+posts?|posts?|articles?|blogs?|releases?|release\s+notes?|changelogs?|documents?|docs|pages?|"
    r"design\s+docs?|adrs?|rfcs?|runbooks?|reports?|newsletters?|announcements?|guides?|tutorials?"
)
ASKS_LISTING = re.compile(
    rf"^\W*(?:which|what)\s+((?:[\w-]+\s+){{0,3}}?(?:{DOCUMENT_KINDS}))((?:\s+(?:about|on|covering)\s+[^?]*?)?)\s+"
    r"(?:came\s+out|went\s+(?:out|live)|(?:were|was|got|have\s+been|has\s+been)\s+(?:published|released|posted|"
    r"written|shipped|put\s+out|added|announced)|did\s+(?:we|they|the\s+\w+)\s+(?:publish|release|post|write|ship)|"
    r"appeared)\b(.*)$",
    re.I,
)
# A topic after the period or the verb: "... in July about Kafka", "... on schema changes".
LISTING_TOPIC = re.compile(r"\b(?:about|on|covering|regarding|concerning)\s+(.+)$", re.I)
# "which PRs were merged", "what issues got opened", "which pull requests have been closed", "which bugs were logged".
ASKS_EVENTS = re.compile(
    r"^\W*(?:which|what)\s+((?:[\w-]+\s+){0,2}?(?:prs?|pull\s+requests?|issues?|bugs?|tickets?|stor(?:y|ies)|tasks?))\s+"
    r"(?:were|was|got|have\s+been|has\s+been)\s+(?:\w+\s+)?"
    r"(merged|opened|closed|filed|created|raised|reported|reopened|logged|submitted)\b",
    re.I,
)
# A record noun that only a tracker's items are ("bugs", "tickets", "stories", "tasks"), not a code host's "issues".
TRACKER_NOUN = re.compile(r"\b(?:bugs?|tickets?|stor(?:y|ies)|tasks?)\b", re.I)
EVENT_OF = {"merged": "merged", "closed": "closed", "reopened": "reopened"}  # the rest: "opened"
# The same asked of one person's part: "which pull requests did TWal open in June", "what issues has Dana filed this
# week", "which PRs did lee merge last month". Closing and resolving are finishing work (ASKS_FINISHED below).
ASKS_EVENTS_BY = re.compile(
    r"^\W*(?:which|what)\s+((?:[\w-]+\s+){0,2}?(?:prs?|pull\s+requests?|issues?|bugs?|tickets?|stor(?:y|ies)|tasks?))\s+"
    r"(?:did|has|have)\s+(?P<who>[\w.@-]+(?:\s+[A-Z][\w.@-]*){0,2})\s+"
    r"(open|merge|file|create|raise|report|submit|log)(?:e?d|ged)?\b",
    re.I,
)
# Reviews given in a period (`briefing.ask.reviewed`): "which PRs did bifurcation review last week", "what did Rob
# ack this week", "which patches has Dana approved", "which pull requests did Lee request changes on". Group "noun":
# the records as worded (absent in "what did Rob review"), "who": the reviewer, "verb": the act.
REVIEW_NOUNS = r"prs?|pull\s+requests?|patch(?:es|sets?)?|merge\s+requests?|mrs?|diffs?|changes"
ASKS_REVIEWED_BY = re.compile(
    rf"^\W*(?:which|what)\s+(?:(?P<noun>(?:[\w-]+\s+){{0,2}}?(?:{REVIEW_NOUNS}))\s+)?(?:did|has|have)\s+"
    r"(?P<who>[\w.@-]+(?:\s+[A-Z][\w.@-]*){0,3})\s+"
    r"(?P<verb>review(?:ed)?|approved?|ack(?:ed)?|sign(?:ed)?\s+off\s+on|request(?:ed)?\s+changes\s+(?:on|to|for))\b",
    re.I,
)
# Items moved into a status in a period: "which tickets moved to In Review last week", "what went to Done
# yesterday" (not "what went into 6.2.1"), "which bugs were moved back to To Do this week", "which tickets did Lena
# move to Done". Group "noun":
# the items as worded, "who": who moved them, "status": the status as written, up to the period or the end.
_MOVED_NOUN = r"(?:(?P<noun>(?:[\w-]+\s+){0,2}?(?:issues?|bugs?|tickets?|stor(?:y|ies)|tasks?|items?))\s+)?"
_MOVED_STATUS = (
    r"(?:back\s+)?(?:in)?to\s+(?:the\s+)?(?P<status>[\w'-]+(?:\s+[\w'-]+){0,2}?)(?:\s+(?:status|state|column))?"
    r"\s*(?=\b(?:last|this|yesterday|today|on|in|during|since|between|over|so\s+far)\b|[?.!]|$)"
)
ASKS_MOVED = re.compile(
    rf"^\W*(?:which|what)\s+{_MOVED_NOUN}(?:were\s+|was\s+|got\s+|have\s+been\s+|has\s+been\s+)?"
    rf"(?:(?:moved|changed|transitioned|switched|put|set)\s+|went\s+(?=(?:back\s+)?to\b)){_MOVED_STATUS}",
    re.I,
)
ASKS_MOVED_BY = re.compile(
    rf"^\W*(?:which|what)\s+{_MOVED_NOUN}(?:did|has|have)\s+(?P<who>[\w.@-]+(?:\s+[A-Z][\w.@-]*){{0,3}}?)\s+"
    rf"(?:move|moved|transition|transitioned|put|set|switch|switched)\s+{_MOVED_STATUS}",
    re.I,
)
# Who gave the most reviews: "who reviewed the most PRs last week", "who approved the most patches this month".
ASKS_REVIEWED_MOST = re.compile(
    rf"^\W*who\s+(?P<verb>reviewed|approved|acked|signed\s+off\s+on)\s+(?:the\s+)?most\s+"
    rf"(?P<noun>(?:[\w-]+\s+){{0,2}}?(?:{REVIEW_NOUNS}))\b",
    re.I,
)
# Who opened or merged the most: "who merged the most PRs last week", "who filed the most bugs this month".
ASKS_RECORDS_MOST = re.compile(
    r"^\W*who\s+(?P<verb>merged|opened|filed|created|raised|reported|submitted|logged)\s+(?:the\s+)?most\s+"
    r"(?P<noun>(?:[\w-]+\s+){0,2}?(?:prs?|pull\s+requests?|issues?|bugs?|tickets?|stor(?:y|ies)|tasks?))\b",
    re.I,
)
# Comments given in a period: "which tickets did Ewan comment on last week", "what did Dana reply to this week",
# "which threads has Rob replied to", "what did Lee weigh in on". Groups as above.
ASKS_COMMENTED_BY = re.compile(
    rf"^\W*(?:which|what)\s+(?:(?P<noun>(?:[\w-]+\s+){{0,2}}?(?:{REVIEW_NOUNS}|issues?|bugs?|tickets?|threads?|"
    r"stor(?:y|ies)|tasks?))\s+)?(?:did|has|have)\s+(?P<who>[\w.@-]+(?:\s+[A-Z][\w.@-]*){0,3})\s+"
    r"(?P<verb>comment(?:ed)?\s+on|repl(?:y|ied)\s+(?:to|on|in)|weigh(?:ed)?\s+in\s+on)\b",
    re.I,
)
# The same asked of anyone's reviews: "which PRs were approved last week", "what patches got acked", "which pull
# requests had changes requested". Group "verb": the act.
ASKS_REVIEWED = re.compile(
    rf"^\W*(?:which|what)\s+(?P<noun>(?:[\w-]+\s+){{0,2}}?(?:{REVIEW_NOUNS}))\s+"
    r"(?:(?:were|was|got|have\s+been|has\s+been)\s+(?P<verb>approved|reviewed|acked)|"
    r"(?:had|got|received)\s+(?P<changes>changes\s+requested))\b",
    re.I,
)
# Work items finished in a period, by someone or by anyone: "which tickets did Dana resolve last week", "what did
# Lee finish this week", "what was resolved yesterday", "which bugs targeted at 2.2.1 were fixed last week", "how many
# tickets did we close last week" (the listing's count answers it), "what did Lee get done / deliver last week",
# not "what got done" (the day's briefing: "what got done yesterday on the move" asks about more than items). The
# verbs are the ways English says a piece of work reached its end; pull requests are
# left to the records listing.
DONE_VERBS = (
    r"resolved?|finish(?:ed)?|clos(?:e|ed)(?:\s+out)?|fix(?:ed)?|complet(?:e|ed)|wrap(?:ped)?\s+up|ship(?:ped)?|"
    r"get\s+done|deliver(?:ed)?|accomplish(?:ed)?|knock(?:ed)?\s+out"
)
WORK_ITEMS = r"tickets?|issues?|bugs?|tasks?|stories|story|items?|work"
ASKS_FINISHED = re.compile(
    rf"^\W*(?:which|what|how\s+many)\s+(?:(?:[\w.-]+\s+){{0,6}}?(?:{WORK_ITEMS})\s+(?:[\w.-]+\s+){{0,5}}?)?"
    rf"(?:(?:did|has|have)\s+(?P<who>(?:[\w.'-]+\s+){{1,3}}?)(?:{DONE_VERBS})"
    rf"|(?P<passive>(?:were|was|got|have\s+been|has\s+been)\s+(?:{DONE_VERBS})))\b",
    re.I,
)
FINISHED_ITEMS = re.compile(rf"\b(?:{WORK_ITEMS})\b", re.I)
# Who finished the most in a period: "who closed the most tickets last week", "who fixed the most bugs this month",
# "who resolved the most issues yesterday"; group "items": the items as worded (with the period after them).
ASKS_FINISHED_MOST = re.compile(
    rf"^\W*who\s+(?:{DONE_VERBS})\s+(?:the\s+)?most\s+(?P<items>(?:[\w.-]+\s+){{0,3}}?(?:{WORK_ITEMS}))\b",
    re.I,
)
# Whether a release can ship: "Is 6.4.0 ready to ship?", "Are we ready to release 2.2.1?", "Is the 7.0.0 release
# ready?" (the release is named by its version): answered "No" with its unresolved items, if it has any.
ASKS_READY = re.compile(
    r"^\W*(?:is|are)\s+(?:we|the\s+team|(?:the\s+)?(?:release\s+)?v?\d[\w.-]*(?:\s+release)?)\s+ready\b"
    r"(?:\s+(?:to\s+(?:ship|release|go(?:\s+out)?)(?:\s+(?:the\s+)?(?:release\s+)?v?\d[\w.-]*(?:\s+release)?)?|"
    r"for\s+(?:release|shipping)))?\s*\?*\s*$",
    re.I,
)
# What still stands between a release and its shipping: "what is blocking 7.0.0", "what's left for the 2.2.1
# release", "which tickets are still open for 6.3.0", "what remains to be done for 6.4.0", "what do we still need to
# finish for 6.4.0", "what is keeping us from shipping 6.4.0" (the release is named by its version).
ASKS_OPEN_FOR = re.compile(
    rf"^\W*(?:what|which\s+(?:[\w-]+\s+){{0,2}}?(?:{WORK_ITEMS}))(?:'s|\s+is|\s+are|\s+remains?)\s+(?:still\s+)?"
    r"(?:blocking|holding\s+up|(?:left|to\s+be\s+done|to\s+do)\s+(?:for|in|before)|open\s+(?:for|in|against)|"
    r"outstanding\s+(?:for|in)|unresolved\s+(?:for|in)|keeping\s+(?:us\s+)?from\s+(?:shipping|releasing)|"
    r"stopping\s+(?:us\s+from\s+)?(?:shipping|releasing))\b"
    r"|^\W*what\s+(?:do|does)\s+(?:we|they|the\s+team)\s+(?:still\s+)?(?:need|have)\s+to\s+"
    r"(?:finish|do|fix|close|resolve|complete)\s+(?:for|in|before)\b"
    rf"|{ASKS_READY.pattern}",
    re.I,
)
# Pull requests nobody has approved yet: "which PRs are waiting for review", "what pull requests still need a
# review", "any PRs awaiting review?", "which PRs are unreviewed", "which PRs haven't been reviewed yet", "which
# pull requests need approval", "which PRs have no approval yet", "any open PRs without a review", "what's in the
# review queue".
ASKS_AWAITING_REVIEW = re.compile(
    r"^\W*(?:which|what|any)\s+(?:open\s+)?(?:prs?|pull\s+requests?)\s+(?:(?:are|is)\s+)?(?:still\s+)?"
    r"(?:(?:waiting\s+(?:for|on)|awaiting|need(?:s|ing)?|blocked\s+on|without)\s+(?:an?\s+|any\s+)?"
    r"(?:reviews?|reviewers?|approvals?)|pending\s+reviews?|unreviewed|not\s+(?:yet\s+)?reviewed|in\s+review|"
    r"(?:have|has)(?:n't|\s+not)\s+(?:yet\s+)?been\s+(?:reviewed|approved)|(?:have|has)\s+no\s+(?:reviews?|approvals?))\b"
    r"|^\W*what(?:'s|\s+is)\s+(?:in|on)\s+the\s+review\s+queue\b",
    re.I,
)
# Work assigned to someone and not done, as of now: "What is Dana working on?", "Which tickets is Dana assigned to?",
# "Which open issues does Dana have?", "What's on Dana's plate?", "What is Dana busy with?", "What is assigned to
# Dana?", "What does Dana have open?"; `who` is the person as written.
ASKS_ASSIGNED = re.compile(
    rf"^\W*(?:what(?:'s|\s+is|\s+are)\s+(?P<who>(?:[\w.'-]+\s+){{1,3}}?)(?:currently\s+|still\s+)?"
    r"(?:working\s+on|busy\s+with)|"
    r"what(?:'s|\s+is)\s+(?:currently\s+|still\s+)?assigned\s+to\s+(?P<who6>[\w.' -]+?)(?=\s*[?.!]?\s*$)|"
    r"what\s+(?:does|do)\s+(?P<who7>(?:[\w.'-]+\s+){1,3}?)have\s+(?:open|in\s+progress|assigned|"
    r"on\s+(?:their|his|her)\s+plate)|"
    rf"(?:which|what)\s+(?:open\s+|unresolved\s+|current\s+)?(?:{WORK_ITEMS})\s+(?:is|are)\s+"
    r"(?:(?P<who2>(?:[\w.'-]+\s+){1,3}?)(?:currently\s+)?(?:assigned(?:\s+to)?|working\s+on|handling)|"
    r"(?:currently\s+|still\s+)?assigned\s+to\s+(?P<who3>[\w.' -]+?)(?=\s*[?.!]?\s*$))|"
    rf"(?:which|what)\s+(?:open\s+|unresolved\s+)?(?:{WORK_ITEMS})\s+does\s+(?P<who4>(?:[\w.'-]+\s+){{1,3}}?)have|"
    r"what(?:'s|\s+is)\s+on\s+(?P<who5>(?:[\w.-]+\s+){0,2}?[\w.-]+)'s\s+plate)\b",
    re.I,
)
# Who "did" it when the question names nobody in particular.
NOBODY = frozenset([*"we you they i us them the team everyone anybody anyone people nobody".split(), "no one"])
PULL = re.compile(r"\bprs?\b|\bpull\s+requests?\b", re.I)
# "what meetings do we have", "which syncs are scheduled", "any 1:1s", "what's on the calendar": the plural is what
# makes it a list ("What meeting decided the cutover?" asks a fact). "Events" and "calls" are left out: "what
# events happened last week?" asks what happened, "which calls failed?" is about an API.
MEETINGS = r"meetings|invites|syncs|1:1s|one-on-ones|appointments"
ASKS_AGENDA = re.compile(
    rf"^\W*(?:(?:what|which)\s+(?:[\w'-]+\s+){{0,2}}?(?:{MEETINGS})\b|any\s+(?:[\w'-]+\s+){{0,2}}?(?:{MEETINGS})\b"
    r"|(?:what|anything)(?:'s|\s+is|\s+was|\s+else\s+is)?\s+(?:on|in)\s+(?:the|my|our|your|\w+'s)\s+(?:team\s+)?"
    r"calendars?\b)",
    re.I,
)
AGENDA_TOPIC = re.compile(r"\b(?:about|regarding|concerning|covering)\s+([^?]+)", re.I)
# "When is the next standup?", "when's our next 1:1 with Marcus?": the first occurrence to come of the meetings
# whose title holds the words.
ASKS_NEXT = re.compile(
    r"^\W*when(?:'s|\s+is|\s+will(?:\s+be)?)\s+(?:the|our|my|your|\w+'s)?\s*next\s+(.+?)\s*(?:\bbe\s*)?\??\s*$", re.I
)
MEETING_WORDS = frozenset({"meeting", "meet", "call", "session", "sync", "event"})
WEEK_OF = re.compile(r"\b(first|second|third|fourth|last)\s+week\s+of\b", re.I)

# -- dates (`briefing.question.timerules`) --------------------------------------------------------------------------
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
    "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2, "few": 3, "several": 5,
}  # fmt: skip
ORDINALS = {
    word: n
    for n, word in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
        "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(),
        start=1,
    )
}
ORDINALS.update({f"twenty{sep}{word}": 20 + n for word, n in list(ORDINALS.items())[:9] for sep in ("-", " ")})
ORDINALS.update({"thirtieth": 30, "thirty-first": 31, "thirty first": 31})
# Regular-expression alternations of the words above, for the time grammar.
MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")"
WEEKDAY = r"(?:" + "|".join(WEEKDAYS) + r")"
ORD = r"(?:st|nd|rd|th)?"
YEAR = r"(?:19|20)\d\d"

# Content words (`briefing.question.terms`): what the question and the evidence are about.
QUESTION_WORDS = frozenset(
    """what who whom whose when where which why how did does do was were is are has have had happen happened
    tell me about any anyone anything there we our us you your it its they their be been being can could should
    would will shall may might must week month day today yesterday last past since ago recently latest current
    currently now still please know newest""".split()
)
# Question vocabulary that paraphrases rather than names the topic: missing from the evidence it says little.
GENERIC = frozenset(
    """many much long big bigger large fast slow often old new get got go going gone use used show shown say said
    give make made take thing things way lot kind sort part point set put keep come came find found look like
    want need first next one two time times happen anything something someone everyone team people work working
    worked summary summarise summarize overview recap update status stand stands plan planned actually really
    right wrong bad good worst best points raised discuss discussed discussion takeaway takeaways gist highlights
    """.split()
)
CALENDAR = frozenset(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday".split()
)
# Roles are named in messages by the person ("Ruth"), rarely by title; their absence says nothing.
ROLES = frozenset("ceo cto cfo coo cio ciso vp em pm tpm sre qa hr it ic".split())
