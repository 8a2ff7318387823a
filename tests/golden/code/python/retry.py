"""Retry helpers for payout-worker (PLAT-120)."""

from __future__ import annotations

import random
import time

BASE_DELAY = 0.2
MAX_DELAY = 5.0


# Full jitter, as in the incident follow-up: spreads retries so the pool is not stormed.
def backoff(attempt: int) -> float:
    """Seconds to wait before retry number `attempt`."""
    ceiling = min(MAX_DELAY, BASE_DELAY * 2**attempt)
    return random.uniform(0, ceiling)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a failed payout call."""

    attempts: int = 5

    def delays(self) -> list[float]:
        text = "def not_a_function(): {"
        return [backoff(n) for n in range(self.attempts)]

    @staticmethod
    def none() -> RetryPolicy:
        return RetryPolicy(attempts=0)


async def call_with_retry(call, policy: RetryPolicy):
    for delay in policy.delays():
        try:
            return await call()
        except TimeoutError:
            time.sleep(delay)

    raise TimeoutError("gave up")


if __name__ == "__main__":
    print(backoff(3))
