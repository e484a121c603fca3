"""A double of the Geniffy API for tests, on httpx's ``MockTransport``.

Spaces (``X-Geniffy-Space``), ``POST /v1/memories`` with ``messages`` (the
user's turns become facts about the user; the assistant's stay the
assistant's), ``POST /v1/search``, ``POST /v1/briefing``, ``POST /v1/context``
(never empty: it says so when nothing is held), ``GET /v1/spaces`` and
``DELETE /v1/spaces/{name}``; errors as ``{"error": {"code", "message"}}``.
Faults: ``fail_with`` (a status for the next requests) and ``delay_s``.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import httpx
from geniffy import AsyncGeniffy

_WORD = re.compile(r"[a-z0-9][a-z0-9\-']+")


@dataclass
class GeniffyDouble:
    spaces: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    fail_with: int | None = None
    delay_s: float = 0.0
    requests: list[str] = field(default_factory=list)
    _next_id: int = 1

    def client(self) -> AsyncGeniffy:
        """The real SDK, talking to this double."""
        http = httpx.AsyncClient(transport=httpx.MockTransport(self.handle))
        return AsyncGeniffy(api_key="test", base_url="https://geniffy.test", http_client=http, max_retries=0)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}")
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.fail_with:
            return _error(self.fail_with, "unavailable", "failing on purpose")
        if not request.headers.get("authorization", "").startswith("Bearer "):
            return _error(401, "unauthorized", "no key")
        space = request.headers.get("x-geniffy-space", "")
        path, method = request.url.path, request.method
        body = json.loads(request.content) if request.content else {}
        if method == "GET" and path == "/v1/spaces":
            return httpx.Response(
                200, json={"spaces": [{"name": n, "memories": len(m)} for n, m in self.spaces.items()]}
            )
        if method == "DELETE" and path.startswith("/v1/spaces/"):
            name = unquote(path.removeprefix("/v1/spaces/"))
            removed = self.spaces.pop(name, None)
            if removed is None:
                return _error(404, "not_found", "no such space")
            return httpx.Response(200, json={"deleted": True, "memories": len(removed)})
        if not space:
            return _error(400, "no_space", "this double only serves per-user spaces")
        memories = self.spaces.setdefault(space, [])
        if method == "POST" and path == "/v1/memories":
            turns = body.get("messages")
            if turns is None and not body.get("text"):
                return _error(422, "empty", "send text, url or messages")
            for turn in turns or [{"role": "user", "content": body["text"]}]:
                about = "user" if turn.get("role") == "user" else "assistant"
                memories.append(
                    {
                        "id": self._next_id,
                        "text": str(turn.get("content", "")),
                        "kind": "detail",
                        "about": about,
                        "status": "current",
                        "said_at": None,
                    }
                )
                self._next_id += 1
            return httpx.Response(
                200,
                json={
                    "source": {
                        "id": f"src_{self._next_id}",
                        "kind": "note",
                        "title": body.get("title") or "conversation",
                        "status": "learned",
                    }
                },
            )
        if method == "POST" and path == "/v1/search":
            return httpx.Response(
                200, json={"memories": _best(memories, str(body.get("q", "")), int(body.get("limit", 10)))}
            )
        if method == "POST" and path == "/v1/briefing":
            lines = [f"- {m['text']}" for m in memories[-20:] if m["about"] == "user"]
            return httpx.Response(200, json={"briefing": "\n".join(lines)})
        if method == "POST" and path == "/v1/context":
            found = _best(memories, str(body.get("question", "")), int(body.get("limit", 12)))
            context = (
                "\n".join(f"- {m['text']}" for m in found)
                or "Nothing is held about this; say you don't know."
            )
            return httpx.Response(
                200,
                json={
                    "question": body.get("question"),
                    "context": context,
                    "memories": found,
                    "used": len(found),
                    "empty": not found,
                },
            )
        return _error(404, "not_found", f"no route {method} {path}")


def _best(memories: list[dict[str, Any]], query: str, limit: int) -> list[dict[str, Any]]:
    words = set(_WORD.findall(query.lower()))
    scored = [(len(words & set(_WORD.findall(m["text"].lower()))), i, m) for i, m in enumerate(memories)]
    return [m for score, _, m in sorted(scored, key=lambda t: (-t[0], -t[1])) if score][:limit]


def _error(status: int, code: str, message: str) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": message}})
