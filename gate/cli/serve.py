"""``gate audit serve``: a read-only web viewer of the audit ledger.

Server-rendered HTML (Jinja2, autoescaped: every caller's word, argument
and memory is shown as text, never run as markup) over the same reads as
the command line: the decision list with the same filters (as URL query
parameters, so a view can be linked, and kept by every page link), one
decision's case file, the chain a page at a time (each entry linked to the
decision that shows its record, the whole chain verified on request), and
statistics with a latency chart drawn as inline SVG. Every record a page
shows is checked against the chain as it is shown and marked when it does
not hold. A bad query parameter is a one-line message. No CDN and no
script: one small stylesheet and an SVG icon ship with gate; pages fit a
390-pixel phone (wide tables scroll inside their box).

It never writes: the ledger is opened read-only and every route is GET.
Bound to 127.0.0.1 by default; bound to any other address it refuses to
start without ``GATE_AUDIT_TOKEN``, and then every request must carry
``Authorization: Bearer <token>`` (missing or wrong: 401).
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import os
import socket
import time
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

import typer
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from gate.audit import MAX_PAGE
from gate.cli.common import DatabaseUrl, fail
from gate.ledger import Ledger

HERE = Path(__file__).parent
_FILTERS = ("caller", "tool", "outcome", "status", "since", "until")


class BearerToken:
    """Every request must carry ``Authorization: Bearer <token>``; anything else is a 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            got = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(got, self._expected):
                response = PlainTextResponse(
                    "401: a bearer token (GATE_AUDIT_TOKEN) is required\n",
                    status_code=401,
                    headers={"WWW-Authenticate": 'Bearer realm="gate audit"'},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(ledger: Ledger, *, token: str | None = None) -> Starlette:
    """The viewer over ``ledger`` (open it read-only); with ``token`` every request needs it."""
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    from gate.audit import STATUS_WORDS, iso

    env.globals["status_words"] = STATUS_WORDS
    env.filters["human"] = _human
    env.filters["when"] = _when
    env.filters["stamp"] = _stamp

    def render(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        page = env.get_template(name).render(now=iso(time.time()), **context)
        return HTMLResponse(page, status_code=status_code)

    def decisions(request: Request) -> Response:
        from gate.audit import AuditFilter, list_decisions, parse_time

        q = request.query_params
        values = {k: (q.get(k) or "").strip() or None for k in _FILTERS}
        try:
            now = time.time()
            where = AuditFilter(
                caller=values["caller"],
                tool=values["tool"],
                outcome=values["outcome"],
                status=values["status"],
                violations=q.get("violations") in ("1", "on", "true"),
                undelivered=q.get("undelivered") in ("1", "on", "true"),
                since=parse_time(values["since"], now=now) if values["since"] else None,
                until=parse_time(values["until"], now=now) if values["until"] else None,
            )
            limit = _whole(q.get("limit"), "limit", default=50, top=MAX_PAGE)
            page = list_decisions(ledger, where, limit=limit, after=q.get("after") or None)
        except (ValueError, LookupError) as exc:
            return render("error.html", 400, title="bad filter", message=_one_line(exc))
        keep = {k: v for k, v in values.items() if v} | where.as_query()
        if q.get("limit"):
            keep["limit"] = str(limit)
        next_link = f"/?{urlencode({**keep, 'after': page.next_after})}" if page.next_after else None
        return render(
            "list.html",
            title="decisions",
            rows=page.rows,
            problems=page.problems,
            values=values,
            where=where,
            next_link=next_link,
            first_link=f"/?{urlencode(keep)}" if q.get("after") else None,
        )

    def decision(request: Request) -> Response:
        from gate.audit import story

        decision_id = request.path_params["decision_id"]
        found = story(ledger, decision_id)
        if found is None:
            return render("error.html", 404, title="not found", message=f"no decision {decision_id}")
        return render("decision.html", title=decision_id, s=found)

    def chain(request: Request) -> Response:
        from gate.audit import chain_entries

        q = request.query_params
        try:
            before = _whole(q.get("before"), "before", default=None, top=None)
            limit = _whole(q.get("limit"), "limit", default=50, top=MAX_PAGE)
        except ValueError as exc:
            return render("error.html", 400, title="bad page", message=_one_line(exc))
        report = ledger.verify(parallel=False) if q.get("verify") == "1" else None
        page = chain_entries(ledger, before=before, limit=limit)
        keep = {"limit": str(limit)} if q.get("limit") else {}
        next_link = (
            f"/chain?{urlencode({**keep, 'before': page['next_before']})}" if page["next_before"] else None
        )
        return render(
            "chain.html",
            title="chain",
            report=report,
            entries=page["entries"],
            next_link=next_link,
            first_link=f"/chain?{urlencode(keep)}" if before is not None else None,
        )

    def favicon(request: Request) -> Response:
        return Response((HERE / "static" / "favicon.svg").read_bytes(), media_type="image/svg+xml")

    def stats_page(request: Request) -> Response:
        from gate.audit import AuditFilter, parse_time, stats

        q = request.query_params
        try:
            since = (q.get("since") or "").strip()
            where = AuditFilter(
                tool=(q.get("tool") or "").strip() or None,
                since=parse_time(since, now=time.time()) if since else None,
            )
        except ValueError as exc:
            return render("error.html", 400, title="bad filter", message=_one_line(exc))
        result = stats(ledger, where)
        return render(
            "stats.html",
            title="statistics",
            st=result,
            chart=latency_chart(result["latency_histogram"]),
            values={"since": since, "tool": where.tool or ""},
        )

    middleware = [Middleware(BearerToken, token=token)] if token else []
    return Starlette(
        routes=[
            Route("/", decisions, methods=["GET"]),
            Route("/decisions/{decision_id:str}", decision, methods=["GET"]),
            Route("/chain", chain, methods=["GET"]),
            Route("/stats", stats_page, methods=["GET"]),
            Route("/favicon.ico", favicon, methods=["GET"]),
            Mount("/static", app=StaticFiles(directory=HERE / "static"), name="static"),
        ],
        middleware=middleware,
    )


def latency_chart(histogram: list[dict[str, Any]], *, width: int = 640, height: int = 220) -> dict[str, Any]:
    """Bar geometry of the latency histogram for the inline SVG (no script, no library)."""
    left, bottom, top = 48, 36, 12
    plot_w, plot_h = width - left - 12, height - bottom - top
    peak = max((b["count"] for b in histogram), default=0)
    bars = []
    if histogram and peak:
        step = plot_w / len(histogram)
        for i, b in enumerate(histogram):
            h = plot_h * b["count"] / peak
            bars.append(
                {
                    "x": round(left + i * step + 1, 2),
                    "y": round(top + plot_h - h, 2),
                    "w": round(max(step - 2, 1), 2),
                    "h": round(h, 2),
                    "label": f"{b['from_ms']:g}-{b['to_ms']:g} ms: {b['count']}",
                }
            )
    ticks = []
    if histogram:
        last = histogram[-1]["to_ms"]
        for i in range(5):
            ticks.append({"x": round(left + plot_w * i / 4, 2), "label": f"{last * i / 4:.3g}"})
    return {
        "width": width,
        "height": height,
        "left": left,
        "top": top,
        "plot_w": plot_w,
        "plot_h": plot_h,
        "base": top + plot_h,
        "peak": peak,
        "bars": bars,
        "ticks": ticks,
    }


def _whole(raw: str | None, name: str, *, default: int | None, top: int | None) -> Any:
    """A positive whole-number query parameter, or ``default`` when absent.

    Raises ValueError with one line naming the parameter, what is allowed and what was given.
    """
    if raw is None or raw.strip() == "":
        return default
    text = raw.strip()
    bound = f" from 1 to {top}" if top is not None else " of 1 or more"
    if not text.isdigit() or int(text) < 1 or (top is not None and int(text) > top):
        raise ValueError(f"{name} must be a whole number{bound}, got {text[:40]!r}")
    return int(text)


def _one_line(exc: BaseException) -> str:
    """An error's message as one line a reader can act on (a LookupError's quotes removed, nothing else)."""
    message = exc.args[0] if isinstance(exc, LookupError) and exc.args else str(exc)
    return " ".join(str(message).split())


def _human(value: Any) -> str:
    from gate.cli.output import human

    return human(value)


def _when(stamp: str | None) -> str:
    """``2026-11-30T08:45:11.566Z`` as ``2026-11-30 08:45:11`` (the full time stays in a tooltip)."""
    if not stamp:
        return "-"
    return stamp.replace("T", " ")[:19]


def _stamp(value: Any) -> str:
    """A timestamp in seconds (as the argument trace records it) as UTC, to the second."""
    from gate.audit import iso

    try:
        return _when(iso(float(value)))
    except (TypeError, ValueError, OverflowError, OSError):
        return "-"


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(
    host: Annotated[
        str, typer.Option(help="address to bind; anything but loopback needs GATE_AUDIT_TOKEN")
    ] = ("127.0.0.1"),
    port: Annotated[int, typer.Option(min=1, max=65535, help="port")] = 8765,
    database_url: DatabaseUrl = None,
) -> None:
    """A read-only web viewer of the ledger: decisions, each decision's story, the chain, statistics."""
    import uvicorn

    from gate.cli.common import open_ledger

    token = os.environ.get("GATE_AUDIT_TOKEN") or None
    if not _loopback(host) and token is None:
        fail(
            f"binding to {host} needs GATE_AUDIT_TOKEN set: every request must then carry it "
            "as a bearer token"
        )
    ledger = open_ledger(database_url)
    try:
        # Bound before it is announced: a port in use is one line, not a URL that serves nothing.
        listener = bind(host, port)
    except BindError as exc:
        ledger.close()
        fail(str(exc))
    app = create_app(ledger, token=token)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"serving the audit ledger {ledger.url} read-only at http://{shown}:{port}/ (Ctrl-C stops)")
    try:
        server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
        server.run(sockets=[listener])
    finally:
        listener.close()
        ledger.close()


class BindError(OSError):
    """The viewer's address cannot be bound (the port is in use, the address is not this host's)."""


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``, for the server to listen on.

    Raises:
        BindError: the port is in use, or the address cannot be bound; the
            message is one line naming the port or address.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise BindError(f"cannot bind {host}: {getattr(exc, 'strerror', None) or exc}") from None
    listener = socket.socket(family, kind, proto)
    try:
        # As uvicorn does: a restarted viewer rebinds past TIME_WAIT; a live listener still refuses.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise BindError(f"port {port} is in use: {exc.strerror} (pick another with --port)") from None
        raise BindError(f"cannot bind {host}:{port}: {exc.strerror or exc}") from None
    return listener
