"""'Did you mean ...?' for a misspelt or shortened name: the closest of the valid ones."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(given: str, valid: Iterable[str], prefix: str = "") -> str:
    """'did you mean X? ' (with its trailing space, to go before the list of valid names), or ''.
    A name the given one begins (mps2 for mps2-an385) is closer than any spelling. `prefix`: what each name
    is said with and compared without (an option's --)."""
    names = [str(name) for name in valid]
    begun = [name for name in names if given and name.lower().startswith(given.lower()) and name != given]
    close = begun[:3] if begun else difflib.get_close_matches(given, names, n=2, cutoff=0.6)
    if not close:
        return ""
    return f"did you mean {' or '.join(prefix + name for name in close)}? "
