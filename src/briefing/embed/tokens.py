"""Counting a dense model's tokens: its own tokeniser, or each word once when a BERT tokeniser allows it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from briefing.embed.models import BUNDLED, bundled_model_dir
from briefing.settings import EmbeddingSettings

# Words whose model tokens `count_tokens` remembers (a bound: about 20 MB), then it forgets them all and starts again.
WORD_TOKENS_MEMO = 200_000


class TokenCounter:
    """A model's tokeniser, loaded on first use, with a bounded memo of each word's count."""

    def __init__(self, settings: EmbeddingSettings, home: Path) -> None:
        self.settings = settings
        self.home = home
        self._tokenizer: Any = None
        self._word_tokens: dict[str, int] | None = None  # a BERT tokeniser's count per word (`count`)
        self._specials = 0

    def count(self, text: str) -> int:
        """Tokens the model sees, specials included (what its limit counts); a guess from the length without a
        tokeniser file."""
        if self._tokenizer is None:
            self._load_tokenizer()
        if self._tokenizer is False:
            return len(text) // 4 + 2
        if self._word_tokens is None:
            return len(self._tokenizer.encode(text).ids)
        return self._count_by_words(text)

    def _load_tokenizer(self) -> None:
        from tokenizers import Tokenizer

        if self.settings.model == BUNDLED:
            path = bundled_model_dir(self.home) / "tokenizer.json"
        elif self.settings.path is not None:
            path = self.settings.path / "tokenizer.json"
        else:
            path = None
        if path is None or not path.is_file():
            self._tokenizer = False
            return
        tok = Tokenizer.from_file(str(path))
        tok.no_truncation()
        tok.no_padding()
        # A BERT tokeniser (BertNormalizer, BertPreTokenizer, WordPiece) never makes a token across a space or a line
        # break: the normaliser maps each character on its own, the pre-tokeniser splits at every whitespace
        # character, and WordPiece reads one word at a time. So a text's count is its specials plus each word's
        # count without them, exactly, and the chunkers' size checks (the open chunk's text with one more line,
        # a long message's growing prefixes) look words up instead of tokenising the text again
        # (`_count_by_words`). Other whitespace is left inside the words: a BERT normaliser drops some characters
        # Python calls whitespace (\x0b, \x1c, \x85), which would join the words around them.
        additive = (
            type(tok.normalizer).__name__ == "BertNormalizer"
            and type(tok.pre_tokenizer).__name__ == "BertPreTokenizer"
            and type(tok.model).__name__ == "WordPiece"
        )
        self._specials = len(tok.encode("").ids)
        self._word_tokens = {} if additive else None
        self._tokenizer = tok

    def _count_by_words(self, text: str) -> int:
        """`count_tokens` as the sum of its words' counts (split at spaces and line breaks), each word tokenised
        once (memoised, bounded by `WORD_TOKENS_MEMO`)."""
        memo = self._word_tokens
        assert memo is not None
        words = text.replace("\n", " ").split(" ")
        counts = [memo.get(word) for word in words]
        if None not in counts:
            return self._specials + sum(cast("list[int]", counts))
        new = list(dict.fromkeys(word for word, n in zip(words, counts, strict=True) if n is None))
        if len(memo) + len(new) > WORD_TOKENS_MEMO:
            memo.clear()  # a bound on memory; another thread reads with .get and counts what it misses anew
        specials = self._specials
        encoded = self._tokenizer.encode_batch(new)
        found = {word: len(enc.ids) - specials for word, enc in zip(new, encoded, strict=True)}
        memo.update(found)
        return specials + sum(found[word] if n is None else n for word, n in zip(words, counts, strict=True))
