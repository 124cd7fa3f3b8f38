"""Results, errors and small helpers shared by every part of the port."""

from __future__ import annotations

import base64
import json
import math
import secrets
import string
import urllib.parse
from typing import Any, Optional


FAILURE = "FAILURE"


WARNING = "WARNING"


INFO = "INFO"


DISCOVERY_PATH = "/.well-known/openid-configuration"


BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) oidc-conformance-port/1.0"


TIME_SKEW = 5 * 60  # seconds, as the suite's conditions


class CondError(Exception):
    """A condition failed (the Java condition threw error(...))."""


class StopModule(Exception):
    """callAndStopOnFailure failed: the module ends here."""


class SkipModule(Exception):
    """fireTestSkipped(...)."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def java_urlencode(s: str) -> str:
    """java.net.URLEncoder.encode(s, UTF-8): form encoding, '*' '-' '.' '_' kept, space -> '+'."""
    out = []
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if c.isascii() and (c.isalnum() or c in "*-._"):
            out.append(c)
        elif c == " ":
            out.append("+")
        else:
            out.append("%%%02X" % ch)
    return "".join(out)


def random_alnum(n: int) -> str:
    alphabet = string.ascii_letters + string.digits
    return "".join(secrets.choice(alphabet) for _ in range(n))


def random_value(length: Optional[int]) -> str:
    """CreateRandomStateValue / CreateRandomNonceValue: default 10 alnum; >10 -> alnum + '-._~'."""
    n = 10 if length is None else length
    if n > 10:
        return random_alnum(n - 4) + "-._~"
    return random_alnum(n)


def spring_query_encode(value: str) -> str:
    """Query parameter encoding close to Spring's UriComponentsBuilder (space as %20)."""
    return urllib.parse.quote(value, safe="-._~!$'()*,;:@/?")


def build_url(base: str, params: list[tuple[str, str]]) -> str:
    if not params:
        return base
    q = "&".join(f"{spring_query_encode(k)}={spring_query_encode(v)}" for k, v in params)
    return base + ("&" if "?" in base else "?") + q


def origin_of(url: str) -> str:
    p = urllib.parse.urlsplit(url)
    port = p.port or (443 if p.scheme == "https" else 80)
    return f"{p.scheme}://{(p.hostname or '').lower()}:{port}"


def web_origin(url: str) -> str:
    """The Origin header a browser sends: scheme://host[:port], default port omitted."""
    p = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(p.scheme)
    host = p.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{p.scheme}://{host}" + (f":{p.port}" if p.port and p.port != default else "")


def single_value_query(url: str) -> dict[str, str]:
    query = urllib.parse.urlsplit(url).query
    out: dict[str, str] = {}
    for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True):
        out.setdefault(k, v)
    return out


def is_str(v: Any) -> bool:
    return isinstance(v, str)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def get_path(obj: Any, path: str) -> Any:
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def get_string(obj: Any, path: str) -> Optional[str]:
    v = get_path(obj, path)
    if v is None:
        return None
    if not isinstance(v, str):
        raise CondError(f"'{path}' is not a string: {json.dumps(v)}")
    return v


def get_long(obj: Any, path: str) -> Optional[int]:
    v = get_path(obj, path)
    if v is None:
        return None
    if not is_number(v):
        raise CondError(f"'{path}' is not a number: {json.dumps(v)}")
    return int(v)


def shannon_entropy_bits(s: str) -> float:
    if not s:
        return 0.0
    counts: dict[str, int] = {}
    for ch in s:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(s)
    per_char = -sum((c / n) * math.log2(c / n) for c in counts.values())
    return per_char * n


def short(s: Any, n: int = 160) -> str:
    s = s if isinstance(s, str) else json.dumps(s)
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."
