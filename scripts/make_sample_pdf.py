"""Write the sample workspace's Q3 planning one-pager as a small, valid PDF, using only the standard library.

The PDF has two pages of Helvetica text (base-14 font, WinAnsiEncoding, no embedded fonts), so any PDF text
extractor can read it back. Run: python scripts/make_sample_pdf.py [OUT]
"""

from __future__ import annotations

import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src/briefing/sample/docs/planning/q3-2026-platform-plan.pdf"

PAGE_W, PAGE_H = 612, 792  # US Letter, points
MARGIN_X, TOP_Y = 56, 740

# Each line: (style, text). Styles: "h1", "h2", "body", "gap".
PAGES: list[list[tuple[str, str]]] = [
    [
        ("h1", "Platform team: Q3 2026 plan (one-pager)"),
        ("body", "Kestrel Pay, platform team. Author: Nadia Petrova (product). Draft of 2026-06-12, ticket PLAT-138."),
        ("body", "For the Q3 planning kick-off on Tuesday 2026-06-16. Reviewed by Priya Raman and Marcus Okafor."),
        ("gap", ""),
        ("h2", "Where we are after Q2"),
        ("body", "- The ledger database runs on Aurora PostgreSQL 15 since the cutover on 2026-06-09"),
        ("body", "  (22 minutes read-only, no errors). Reverse replication to the old hosts runs until 2026-06-23."),
        ("body", "- Pooling is Amazon RDS Proxy (ADR-0009). ledger-api 2.5.1 is in production."),
        ("body", "- Aurora costs 5,240 USD a month against a ceiling of 5,500 USD approved by the CTO."),
        ("body", "- Open regression: /v1/statements p99 is 520 ms after the cutover (PLAT-137, fix in review)."),
        ("gap", ""),
        ("h2", "Q3 priorities"),
        ("body", "1. Decommission ledger-db-01..03 and remove pglogical on 2026-06-23 (PLAT-128, PLAT-139)."),
        ("body", "   Owner Lena Vogt. Saves 3,350 USD a month of EC2 and EBS."),
        ("body", "2. Per-merchant rate limit on POST /v1/transfers (PLAT-124). Owner Marcus Okafor,"),
        ("body", "   target end of July. Default limit 200 requests per second per merchant, configurable."),
        ("body", "3. Statements performance: p99 under 250 ms for /v1/statements (PLAT-137) and report"),
        ("body", "   queries routed to the Aurora reader (PLAT-132). Owner Tomás Herrera."),
        (
            "body",
            "4. Remove /v1/balances/legacy after the mobile app release of 2026-06-30 (PLAT-113). Owner Aiko Tanaka.",
        ),
        ("body", "5. Decide on Aurora reserved instances in July (about 31 percent off the instance cost)."),
        ("gap", ""),
        ("h2", "Objectives and key results"),
        ("body", "- ledger-api availability at least 99.95 percent per month (Q2: 99.91 percent, one Sev2)."),
        ("body", "- Fewer than 6 pages per on-call week on average (Q2: 9)."),
        ("body", "- Every schema migration tested against PostgreSQL 15 in CI before merge."),
    ],
    [
        ("h1", "Q3 2026 plan: people, timeline, risks"),
        ("gap", ""),
        ("h2", "People"),
        ("body", "- Team of 8 today: Priya Raman (EM), Marcus Okafor, Lena Vogt, Tomás Herrera, Aiko Tanaka,"),
        ("body", "  Sam Whitfield, Nadia Petrova, Jonah Baptiste (joined 2026-06-01)."),
        ("body", "- Farah Haddad joins as senior SRE on 2026-07-06 (REQ-2291), making 9."),
        ("body", "- Lena is on leave 2026-06-08 to 2026-06-12; no other leave planned before August."),
        ("gap", ""),
        ("h2", "Timeline"),
        ("body", "- June: old hosts decommissioned (06-23), ledger-api 2.6.0 (06-24) with the statements index."),
        ("body", "- July: rate limits in staging, reserved instance decision, Farah onboarding."),
        ("body", "- August: rate limits in production, legacy balances endpoint removed."),
        ("body", "- September: disaster recovery drill for Aurora (cross-region snapshot restore, target 2 hours)."),
        ("gap", ""),
        ("h2", "Risks"),
        ("body", "- The mobile release of 06-30 slips, which keeps /v1/balances/legacy alive."),
        ("body", "- A single Aurora writer: a failover takes under a minute but drops in-flight transfers."),
        ("body", "- Rate limits could hurt the three largest early-morning merchants; talk to them first."),
        ("gap", ""),
        ("h2", "Budget"),
        ("body", "- Infrastructure: Aurora 5,240 USD a month; EC2 database hosts drop to 0 after 06-23."),
        ("body", "- No new tooling spend requested for Q3."),
    ],
]

STYLE = {"h1": (17, 26), "h2": (12.5, 20), "body": (10, 14), "gap": (10, 8)}


def _pdf_string(text: str) -> bytes:
    """Encode as a PDF literal string in WinAnsi (Latin-1 covers what we use), escaping delimiters."""
    raw = text.encode("cp1252")
    out = bytearray(b"(")
    for byte in raw:
        if byte in b"()\\":
            out += b"\\" + bytes([byte])
        elif byte < 32 or byte > 126:
            out += f"\\{byte:03o}".encode("ascii")
        else:
            out.append(byte)
    out += b")"
    return bytes(out)


def _content_stream(lines: list[tuple[str, str]]) -> bytes:
    ops: list[bytes] = [b"BT"]
    y = TOP_Y
    for style, text in lines:
        size, leading = STYLE[style]
        if style != "gap":
            font = b"/F2" if style in ("h1", "h2") else b"/F1"
            ops.append(font + f" {size} Tf".encode())
            ops.append(f"1 0 0 1 {MARGIN_X} {y} Tm".encode())
            ops.append(_pdf_string(text) + b" Tj")
        y -= leading
    ops.append(b"ET")
    return b"\n".join(ops) + b"\n"


def build_pdf(pages: list[list[tuple[str, str]]]) -> bytes:
    """Assemble objects, then the xref table with the byte offset of every object."""
    n_pages = len(pages)
    # Object numbers: 1 catalog, 2 pages, 3 Helvetica, 4 Helvetica-Bold, 5 info, then (page, content) pairs.
    page_ids = [6 + 2 * i for i in range(n_pages)]
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids ["
        + b" ".join(f"{p} 0 R".encode() for p in page_ids)
        + b"]"
        + f" /Count {n_pages} >>".encode(),
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        5: b"<< /Title "
        + _pdf_string("Platform team: Q3 2026 plan")
        + b" /Author "
        + _pdf_string("Nadia Petrova")
        + b" /CreationDate (D:20260612100000Z) >>",
    }
    for page_id, lines in zip(page_ids, pages, strict=True):
        stream = _content_stream(lines)
        objects[page_id] = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_W} {PAGE_H}] "
            f"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents {page_id + 1} 0 R >>"
        ).encode()
        objects[page_id + 1] = f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"endstream"

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        out += f"{num} 0 obj\n".encode() + objects[num] + b"\nendobj\n"
    xref_at = len(out)
    size = max(objects) + 1
    out += f"xref\n0 {size}\n".encode() + b"0000000000 65535 f \n"
    for num in range(1, size):
        out += f"{offsets[num]:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {size} /Root 1 0 R /Info 5 0 R >>\nstartxref\n{xref_at}\n%%EOF\n".encode()
    return bytes(out)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(build_pdf(PAGES))
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
