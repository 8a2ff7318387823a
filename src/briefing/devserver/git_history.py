"""The sample `ledger-api` repository's history: its people, and each commit's author, date, message and files."""

from __future__ import annotations

from dataclasses import dataclass, field

PEOPLE = {
    "aiko": ("Aiko Tanaka", "aiko.tanaka@kestrelpay.example"),
    "tomas": ("Tomás Herrera", "tomas.herrera@kestrelpay.example"),
    "sam": ("Sam Whitfield", "sam.whitfield@kestrelpay.example"),
    "jonah": ("Jonah Baptiste", "jonah.baptiste@kestrelpay.example"),
}


@dataclass(frozen=True)
class Commit:
    who: str
    at: str  # ISO-8601 UTC
    message: str
    files: dict[str, str] = field(default_factory=dict)
    branch: str = "main"
    tag: tuple[str, str] | None = None  # (name, annotation)


GO_MOD = "module github.com/kestrelpay/ledger-api\n\ngo {version}\n"

MAIN_GO = """package main

import (
\t"log"
\t"net/http"

\t"github.com/kestrelpay/ledger-api/internal/transfers"
)

func main() {
\tmux := http.NewServeMux()
\tmux.Handle("/v1/transfers", transfers.Handler())
\tlog.Fatal(http.ListenAndServe(":8080", mux))
}
"""

IDEMPOTENCY_GO = """package transfers

import (
\t"net/http"
\t"sync"
)

// Keys remembers the result of each POST /v1/transfers by its Idempotency-Key header (PLAT-111), so a
// retried request never posts the same transfer twice.
type Keys struct {
\tmu   sync.Mutex
\tseen map[string]int64
}

// Remember returns the transfer id stored for key, or stores id when the key is new.
func (k *Keys) Remember(key string, id int64) (int64, bool) {
\tk.mu.Lock()
\tdefer k.mu.Unlock()
\tif first, ok := k.seen[key]; ok {
\t\treturn first, true
\t}
\tk.seen[key] = id
\treturn id, false
}

// Handler serves POST /v1/transfers.
func Handler() http.Handler {
\tkeys := &Keys{seen: map[string]int64{}}
\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
\t\tkey := r.Header.Get("Idempotency-Key")
\t\tif key == "" {
\t\t\thttp.Error(w, "Idempotency-Key header is required", http.StatusBadRequest)
\t\t\treturn
\t\t}
\t\tkeys.Remember(key, 0)
\t\tw.WriteHeader(http.StatusCreated)
\t})
}
"""

BATCH_GO_OLD = """package settlement

import (
\t"context"
\t"database/sql"
)

const lockID = 4242

// Run settles one day. The advisory lock keeps two batches from running at once.
func Run(ctx context.Context, db *sql.DB) error {
\tif _, err := db.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lockID); err != nil {
\t\treturn err
\t}
\tdefer db.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", lockID)
\treturn settle(ctx, db)
}

func settle(ctx context.Context, db *sql.DB) error {
\t_, err := db.ExecContext(ctx, "CALL settle_day()")
\treturn err
}
"""

BATCH_GO_NEW = """package settlement

import (
\t"context"
\t"database/sql"
)

const lockID = 4242

// Run settles one day. The session-level advisory lock is taken on a dedicated connection: behind a
// transaction-mode pooler (PLAT-118) the lock and the unlock could land on different server sessions.
func Run(ctx context.Context, db *sql.DB) error {
\tconn, err := db.Conn(ctx)
\tif err != nil {
\t\treturn err
\t}
\tdefer conn.Close()
\tif _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lockID); err != nil {
\t\treturn err
\t}
\tdefer conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", lockID)
\treturn settle(ctx, conn)
}

func settle(ctx context.Context, conn *sql.Conn) error {
\t_, err := conn.ExecContext(ctx, "CALL settle_day()")
\treturn err
}
"""

BATCH_TEST_GO = """package settlement

import (
\t"testing"
\t"time"
)

// TestSettlementBatch used to depend on wall-clock time and failed around midnight (PLAT-115).
func TestSettlementBatch(t *testing.T) {
\tday := time.Date(2026, 5, 19, 0, 0, 0, 0, time.UTC)
\tif got := CutOff(day); !got.Equal(day.Add(24 * time.Hour)) {
\t\tt.Fatalf("cut-off %v", got)
\t}
}
"""

REPORT_GO_OLD = """package settlement

import "time"

// CutOff is the end of the settlement day that starts at day.
func CutOff(day time.Time) time.Time {
\ty, m, d := day.Local().Date()
\treturn time.Date(y, m, d+1, 0, 0, 0, 0, time.Local)
}
"""

REPORT_GO_NEW = """package settlement

import "time"

// CutOff is the end of the settlement day that starts at day. Days are cut at UTC midnight, never at the
// server's local midnight (PLAT-135).
func CutOff(day time.Time) time.Time {
\ty, m, d := day.UTC().Date()
\treturn time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}
"""

MIGRATION_0047_OLD = """-- 0047: settlement totals per merchant and day.
CREATE VIEW settlement_totals AS
SELECT merchant_id, settled_on, sum(amount) AS total
FROM settlements
WHERE amount > '0'
GROUP BY merchant_id, settled_on;
"""

MIGRATION_0047_NEW = """-- 0047: settlement totals per merchant and day.
-- PG15 rejects the implicit text-to-numeric cast PG12 accepted (PLAT-130): cast explicitly.
CREATE VIEW settlement_totals AS
SELECT merchant_id, settled_on, sum(amount) AS total
FROM settlements
WHERE amount > 0::numeric
GROUP BY merchant_id, settled_on;
"""

STATEMENTS_INDEX_SQL = """-- 0049: /v1/statements scans entries by account and time; without this index
-- p99 rose from 310 ms to 520 ms after the Aurora cutover (PLAT-137).
CREATE INDEX CONCURRENTLY statements_account_id_created_at_idx
    ON statements (account_id, created_at);
"""

REQUEST_ID_GO = """package logging

import (
\t"context"
\t"crypto/rand"
\t"encoding/hex"
\t"net/http"
)

type ctxKey struct{}

// RequestID adds an X-Request-Id to every request and its log lines (PLAT-140).
func RequestID(next http.Handler) http.Handler {
\treturn http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
\t\tid := r.Header.Get("X-Request-Id")
\t\tif id == "" {
\t\t\tid = newID()
\t\t}
\t\tw.Header().Set("X-Request-Id", id)
\t\tnext.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, id)))
\t})
}

func newID() string {
\tb := make([]byte, 8)
\t_, _ = rand.Read(b)
\treturn hex.EncodeToString(b)
}
"""


def changelog(*entries: str) -> str:
    return "# Changelog\n\n" + "\n".join(entries)


CHANGES_240 = (
    "## 2.4.0 (2026-05-13)\n\n- Idempotency keys for POST /v1/transfers (PLAT-111, #412)\n- Go 1.24 (PLAT-112, #415)\n"
)
CHANGES_250 = (
    "## 2.5.0 (2026-06-04)\n\n- Settlement batch takes its advisory lock on a dedicated connection"
    " (PLAT-118, #421)\n- Migration 0047 casts explicitly for PostgreSQL 15 (PLAT-130, #426)\n"
    "- Deflaked TestSettlementBatch (PLAT-115, #418)\n"
)
CHANGES_251 = "## 2.5.1 (2026-06-10)\n\n- Settlement report cuts days at UTC midnight (PLAT-135, #431)\n"

HISTORY = [
    Commit(
        "sam",
        "2026-04-30T16:00:00+00:00",
        "Baseline of ledger-api before the Aurora migration",
        {
            "go.mod": GO_MOD.format(version="1.22"),
            "cmd/ledger-api/main.go": MAIN_GO,
            "internal/settlement/batch.go": BATCH_GO_OLD,
            "internal/settlement/report.go": REPORT_GO_OLD,
            "migrations/0047_settlement_totals.sql": MIGRATION_0047_OLD,
            "CHANGELOG.md": changelog(),
        },
    ),
    Commit(
        "tomas",
        "2026-05-11T10:42:00+00:00",
        "Upgrade to Go 1.24 (#415)\n\nPLAT-112. Bumps the toolchain and the CI image; no code changes needed.",
        {"go.mod": GO_MOD.format(version="1.24")},
    ),
    Commit(
        "aiko",
        "2026-05-12T15:18:00+00:00",
        "Idempotency keys for POST /v1/transfers (#412)\n\nPLAT-111. A retried transfer with the same"
        " Idempotency-Key returns the first result instead of posting twice.",
        {"internal/transfers/idempotency.go": IDEMPOTENCY_GO},
    ),
    Commit(
        "sam",
        "2026-05-13T13:50:00+00:00",
        "Release 2.4.0\n\nPLAT-110.",
        {"CHANGELOG.md": changelog(CHANGES_240)},
        tag=("v2.4.0", "ledger-api 2.4.0\n\nIdempotency keys for transfers (PLAT-111) and Go 1.24 (PLAT-112)."),
    ),
    Commit(
        "sam",
        "2026-05-20T11:05:00+00:00",
        "Deflake TestSettlementBatch (#418)\n\nPLAT-115. The test used the wall clock and failed around midnight.",
        {"internal/settlement/batch_test.go": BATCH_TEST_GO},
    ),
    Commit(
        "tomas",
        "2026-05-22T14:30:00+00:00",
        "Settlement batch: take advisory lock on a dedicated connection (#421)\n\nPLAT-118. Session-level"
        " advisory locks break under transaction pooling; holding one connection keeps lock and unlock"
        " together.",
        {"internal/settlement/batch.go": BATCH_GO_NEW},
    ),
    Commit(
        "aiko",
        "2026-06-03T16:20:00+00:00",
        "Migration 0047: explicit numeric cast (#426)\n\nPLAT-130. PostgreSQL 15 rejects the implicit cast in"
        " the settlement_totals view; this blocked release 2.5.0 on 06-03.",
        {"migrations/0047_settlement_totals.sql": MIGRATION_0047_NEW},
    ),
    Commit(
        "sam",
        "2026-06-04T10:55:00+00:00",
        "Release 2.5.0 changelog (#429)\n\nPLAT-129. Slipped one day from 06-03 because of PLAT-130.",
        {"CHANGELOG.md": changelog(CHANGES_250, CHANGES_240)},
        tag=("v2.5.0", "ledger-api 2.5.0\n\nAdvisory lock fix (PLAT-118), migration 0047 for PG15 (PLAT-130)."),
    ),
    Commit(
        "aiko",
        "2026-06-10T11:40:00+00:00",
        "Settlement report: cut days in UTC (#431)\n\nPLAT-135. The report cut the day at the server's local"
        " midnight after the cutover.",
        {"internal/settlement/report.go": REPORT_GO_NEW},
    ),
    Commit(
        "sam",
        "2026-06-10T12:50:00+00:00",
        "Release 2.5.1 (hotfix)\n\nPLAT-136.",
        {"CHANGELOG.md": changelog(CHANGES_251, CHANGES_250, CHANGES_240)},
        tag=("v2.5.1", "ledger-api 2.5.1 (hotfix)\n\nSettlement report cuts days in UTC (PLAT-135)."),
    ),
    Commit(
        "jonah",
        "2026-06-11T09:35:00+00:00",
        "Request id in logs (#437)\n\nPLAT-140. My starter task: every request gets an X-Request-Id that the"
        " log lines carry.",
        {"internal/logging/requestid.go": REQUEST_ID_GO},
        branch="jonah/request-id",
    ),
    Commit(
        "tomas",
        "2026-06-12T15:10:00+00:00",
        "Index statements(account_id, created_at) (#434)\n\nPLAT-137. Brings /v1/statements p99 back to 290 ms"
        " in staging.",
        {"migrations/0049_statements_account_created_idx.sql": STATEMENTS_INDEX_SQL},
        branch="tomas/statements-index",
    ),
]
