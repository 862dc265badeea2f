"""'Did you mean ...?' for a misspelt name: the closest of the valid ones."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(given: str, valid: Iterable[str]) -> str:
    """'did you mean X? ' (with its trailing space, to go before the list of valid names), or ''."""
    close = difflib.get_close_matches(given, [str(name) for name in valid], n=2, cutoff=0.6)
    if not close:
        return ""
    return f"did you mean {' or '.join(close)}? "
