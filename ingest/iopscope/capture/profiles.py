"""Named fio load profiles, read from TOML data (``profiles.toml`` plus an optional user file).

A profile says *what* IO to issue (pattern, read share, block size); the sweep says *how hard*
(outstanding IOs) and *how long*. Turning a profile into fio options is :meth:`Profile.fio_rw`.

>>> p = load_profiles()["database"]
>>> (p.pattern, p.read_pct, p.block_size, p.fio_rw())
('random', 67.0, '8k', ('randrw', 67.0))
>>> load_profiles()["streaming"].fio_rw()
('read', None)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BUILTIN = Path(__file__).with_name("profiles.toml")
PATTERNS = ("random", "sequential")
_KEYS = {"description", "family", "pattern", "read_pct", "block_size", "options"}


class ProfileError(ValueError):
    pass


@dataclass(frozen=True)
class Profile:
    name: str
    pattern: str
    read_pct: float
    block_size: str
    description: str = ""
    family: str = "user"
    options: dict[str, str] = field(default_factory=dict)
    source: str = "builtin"

    def fio_rw(self, read_pct: float | None = None) -> tuple[str, float | None]:
        """fio ``rw`` and ``rwmixread`` (None when not a mix) for this profile (or another read share)."""
        pct = self.read_pct if read_pct is None else float(read_pct)
        random = self.pattern == "random"
        if pct >= 100:
            return ("randread" if random else "read"), None
        if pct <= 0:
            return ("randwrite" if random else "write"), None
        return ("randrw" if random else "rw"), pct


def _profile(name: str, data: Any, source: str) -> Profile:
    where = f"{source}: profile [{name}]"
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: expected a table")
    unknown = set(data) - _KEYS
    if unknown:
        raise ProfileError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                           f"(known: {', '.join(sorted(_KEYS))})")
    for key in ("pattern", "read_pct", "block_size"):
        if key not in data:
            raise ProfileError(f"{where}: missing key '{key}'")
    if data["pattern"] not in PATTERNS:
        raise ProfileError(f"{where}: pattern must be one of {', '.join(PATTERNS)}, got {data['pattern']!r}")
    pct = data["read_pct"]
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not 0 <= pct <= 100:
        raise ProfileError(f"{where}: read_pct must be a number from 0 to 100, got {pct!r}")
    if not isinstance(data["block_size"], str) or not data["block_size"].strip():
        raise ProfileError(f"{where}: block_size must be a fio size string such as \"8k\"")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ProfileError(f"{where}: options must be a table of fio options")
    return Profile(
        name=name, pattern=data["pattern"], read_pct=float(pct), block_size=data["block_size"].strip(),
        description=str(data.get("description", "")), family=str(data.get("family", "user")),
        options={str(k): _option_text(v) for k, v in options.items()}, source=source,
    )


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def parse_profiles(text: str, source: str) -> dict[str, Profile]:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{source}: not valid TOML ({exc})") from None
    return {name: _profile(name, data, source) for name, data in raw.items()}


def load_profiles(user_file: Path | str | None = None) -> dict[str, Profile]:
    """Built-in profiles, then the user's file (its names replace built-in ones)."""
    profiles = parse_profiles(BUILTIN.read_text(encoding="utf-8"), "builtin")
    if user_file is not None:
        path = Path(user_file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ProfileError(f"{path}: cannot read profiles file ({exc.strerror})") from None
        profiles.update(parse_profiles(text, str(path)))
    return profiles


def resolve(names: list[str], profiles: dict[str, Profile]) -> list[Profile]:
    missing = [n for n in names if n not in profiles]
    if missing:
        raise ProfileError(f"unknown profile(s): {', '.join(missing)} "
                           f"(known: {', '.join(sorted(profiles))})")
    return [profiles[n] for n in names]
