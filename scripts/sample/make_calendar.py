"""Write `team.ics`: the sample team's calendar (fictional; see src/briefing/sample/STORY.md "Email and calendar").

Every series ends by 30 June 2026, so the sample config can expand far around the real clock (`expand_days`)
and the calendar stays a few dozen events whenever the demo runs.

Run `python scripts/sample/make_calendar.py [OUT]` after changing it; the output is deterministic.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Writes into the shipped sample, or into the folder named by the first argument (to diff a run against it).
SAMPLE = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE / "calendar"
DOMAIN = "kestrelpay.example"
TEAM = {
    "priya": "Priya Raman",
    "marcus": "Marcus Okafor",
    "lena": "Lena Vogt",
    "tomas": "Tomás Herrera",
    "aiko": "Aiko Tanaka",
    "sam": "Sam Whitfield",
    "nadia": "Nadia Petrova",
}
ADDRESS = {
    "priya": "priya.raman",
    "marcus": "marcus.okafor",
    "lena": "lena.vogt",
    "tomas": "tomas.herrera",
    "aiko": "aiko.tanaka",
    "sam": "sam.whitfield",
    "nadia": "nadia.petrova",
    "jonah": "jonah.baptiste",
}
TEAM["jonah"] = "Jonah Baptiste"
CONFLUENCE = "https://kestrelpay.atlassian.net/wiki/spaces/ENG/pages"


def person(prop: str, who: str, status: str | None = None) -> str:
    params = f";CN={TEAM[who]}" + (f";PARTSTAT={status}" if status else "")
    return f"{prop}{params}:mailto:{ADDRESS[who]}@{DOMAIN}"


def event(uid: str, created: str, lines: list[str]) -> list[str]:
    return ["BEGIN:VEVENT", f"UID:{uid}@{DOMAIN}", f"DTSTAMP:{created}", f"CREATED:{created}", *lines, "END:VEVENT"]


def calendar() -> str:
    everyone = [w for w in TEAM if w != "jonah"]
    out = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Kestrel Pay//sample//EN", "X-WR-CALNAME:Platform team",
           "X-WR-TIMEZONE:UTC"]  # fmt: skip
    # Daily standup at 09:30 UTC until 15 May, then 10:00 from 18 May (a second series).
    out += event("standup-0930", "20260428T090000Z", [
        "DTSTART:20260504T093000Z", "DTEND:20260504T094500Z",
        "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20260515T235959Z",
        "SUMMARY:Platform standup", person("ORGANIZER", "priya"), "LOCATION:https://meet.kestrelpay.example/standup",
        *[person("ATTENDEE", w, "ACCEPTED") for w in everyone],
        "DESCRIPTION:Daily standup. Moves to 10:00 UTC from Monday 18 May.",
    ])  # fmt: skip
    out += event("standup-1000", "20260515T120000Z", [
        "DTSTART:20260518T100000Z", "DTEND:20260518T101500Z",
        "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20260626T235959Z",
        # No standup on cutover morning; the team is on the cutover call.
        "EXDATE:20260609T100000Z",
        "SUMMARY:Platform standup", person("ORGANIZER", "priya"), "LOCATION:https://meet.kestrelpay.example/standup",
        *[person("ATTENDEE", w, "ACCEPTED") for w in everyone],
        "DESCRIPTION:Daily standup at 10:00 UTC (team working agreements, " + CONFLUENCE + "/524295).",
    ])  # fmt: skip
    out += event("postmortem-review", "20260520T090000Z", [
        "DTSTART:20260522T150000Z", "DTEND:20260522T160000Z", "SUMMARY:INC-2026-014 postmortem review",
        person("ORGANIZER", "lena"), *[person("ATTENDEE", w, "ACCEPTED") for w in everyone],
        "DESCRIPTION:Review of the 19 May ledger-api 5xx incident. Postmortem: " + CONFLUENCE + "/524291 and "
        "file:docs/postmortems/2026-05-19-ledger-5xx.md. Action items PLAT-120, PLAT-121, PLAT-123.",
    ])  # fmt: skip
    out += event("retro-0604", "20260528T090000Z", [
        "DTSTART:20260604T140000Z", "DTEND:20260604T150000Z", "SUMMARY:Sprint retro",
        person("ORGANIZER", "priya"), *[person("ATTENDEE", w, "ACCEPTED") for w in everyone],
        "DESCRIPTION:Notes: file:docs/meetings/2026-06-04-retro.txt",
    ])  # fmt: skip
    out += event("cutover", "20260522T100000Z", [
        "DTSTART:20260609T053000Z", "DTEND:20260609T080000Z", "SUMMARY:Ledger production cutover to Aurora",
        person("ORGANIZER", "marcus"), person("ATTENDEE", "sam", "ACCEPTED"), person("ATTENDEE", "tomas", "ACCEPTED"),
        person("ATTENDEE", "lena", "DECLINED"), person("ATTENDEE", "priya", "TENTATIVE"),
        "LOCATION:https://meet.kestrelpay.example/cutover",
        "DESCRIPTION:Runbook: file:docs/runbooks/aurora-cutover.md (PLAT-127). Plan: " + CONFLUENCE + "/524290. "
        "Lena is on leave; Sam is the second pair of hands.",
    ])  # fmt: skip
    out += event("lena-leave", "20260505T080000Z", [
        "DTSTART;VALUE=DATE:20260608", "DTEND;VALUE=DATE:20260613", "SUMMARY:Lena on leave",
        person("ORGANIZER", "lena"), "TRANSP:TRANSPARENT",
        "DESCRIPTION:On-call swapped with Tomás for the week of 8 June (PLAT-134).",
    ])  # fmt: skip
    out += event("one-on-one-marcus", "20260430T090000Z", [
        "DTSTART:20260505T130000Z", "DTEND:20260505T133000Z", "RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20260630T235959Z",
        "SUMMARY:Priya / Marcus 1:1", person("ORGANIZER", "priya"), person("ATTENDEE", "marcus", "ACCEPTED"),
    ])  # fmt: skip
    out += event("one-on-one-marcus", "20260601T090000Z", [
        "RECURRENCE-ID:20260609T130000Z", "DTSTART:20260610T130000Z", "DTEND:20260610T133000Z",
        "SUMMARY:Priya / Marcus 1:1 (moved: cutover day)", person("ORGANIZER", "priya"),
        person("ATTENDEE", "marcus", "ACCEPTED"),
    ])  # fmt: skip
    out += event("one-on-one-aiko", "20260430T090000Z", [
        "DTSTART:20260507T140000Z", "DTEND:20260507T143000Z", "RRULE:FREQ=WEEKLY;BYDAY=TH;UNTIL=20260630T235959Z",
        "SUMMARY:Priya / Aiko 1:1", person("ORGANIZER", "priya"), person("ATTENDEE", "aiko", "ACCEPTED"),
    ])  # fmt: skip
    out += event("q3-planning", "20260610T090000Z", [
        "DTSTART:20260616T130000Z", "DTEND:20260616T150000Z", "SUMMARY:Q3 planning",
        person("ORGANIZER", "priya"), *[person("ATTENDEE", w, "NEEDS-ACTION") for w in [*everyone, "jonah"]],
        "DESCRIPTION:Draft roadmap: " + CONFLUENCE + "/524293 (PLAT-138, PLAT-124, PLAT-128).",
    ])  # fmt: skip
    out.append("END:VCALENDAR")
    return "\r\n".join(out) + "\r\n"


def main() -> None:
    path = OUT / "team.ics"
    path.write_text(calendar(), encoding="utf-8", newline="")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
