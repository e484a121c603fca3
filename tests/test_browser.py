"""The audit viewer in a real browser: from the list to a decision, at 1280 and 390 pixels, with screenshots.

Drives Debian's chromium through Playwright. The screenshots are saved in
the test's temporary directory (``list.png``, ``decision.png``, ...; at 390
pixels ``phone-*.png``).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

import gate
from gate.cli.demo_run import run_demo
from gate.cli.serve import create_app

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[str]:
    """The viewer over a ledger the demo wrote, served by uvicorn on a free local port."""
    assert run_demo(tmp_path / "home") == 0
    ledger = gate.Ledger(f"sqlite:///{tmp_path / 'home' / 'ledger.db'}", create=False, read_only=True)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(ledger), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)
    ledger.close()


def test_click_from_the_list_to_a_decision(viewer: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{viewer}/?tool=issue_refund")
        rows = page.locator("table.list tbody tr")
        assert rows.count() == 3
        assert page.locator("select[name=outcome]").input_value() == ""
        assert page.locator("input[name=tool]").input_value() == "issue_refund"
        page.screenshot(path=str(tmp_path / "list.png"), full_page=True)

        succeeded = rows.filter(has_text="succeeded")
        assert succeeded.count() == 1
        succeeded.locator("a").first.click()
        page.wait_for_url("**/decisions/gd_*")
        assert page.locator("h1").inner_text().startswith("act issue_refund")
        request = page.locator("section", has=page.locator("h2", has_text="Request"))
        assert "A-1001" in request.inner_text() and "sha256:" in request.inner_text()
        traced = page.locator("table.arguments tbody tr")
        assert traced.count() == 2 and "refund 40 on order A-1001" in traced.first.inner_text()
        dialogue = page.locator(".dialogue").inner_text()
        assert "Please confirm: refund 40 on order A-1001?" in dialogue and "Yes, go ahead." in dialogue
        deliveries = page.locator("table.deliveries tbody tr")
        assert deliveries.count() == 1 and "delivered" in deliveries.inner_text()
        kinds = page.locator("table.chain tbody tr td:nth-child(3)").all_inner_texts()
        assert kinds == ["confirmation.2", "decision.2", "receipt.2", "delivery"]
        # The yes that led here, one click away.
        assert page.locator("p.case a").count() == 1
        page.screenshot(path=str(tmp_path / "decision.png"), full_page=True)

        page.get_by_role("link", name="Chain", exact=True).click()
        assert page.locator("table.chain tbody tr").count() == 20
        page.get_by_role("link", name="Verify the whole chain").click()
        assert "Verified" in page.locator(".verdict").inner_text()
        page.get_by_role("link", name="Statistics", exact=True).click()
        assert page.locator("svg.chart rect").count() > 0
        page.screenshot(path=str(tmp_path / "stats.png"), full_page=True)
        browser.close()
    for name in ("list.png", "decision.png", "stats.png"):
        assert (tmp_path / name).stat().st_size > 10_000, name


def overflow(page: Any) -> int:
    """How far the page is wider than the window (0: no sideways scrolling of the page itself)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def test_every_page_fits_a_phone(viewer: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        for width in (1280, 390):
            page = browser.new_page(viewport={"width": width, "height": 844})
            page.goto(f"{viewer}/?tool=issue_refund&status=succeeded")
            page.locator("table.list tbody tr a").first.click()
            page.wait_for_url("**/decisions/gd_*")
            decision = page.url
            for name, url in (
                ("list", f"{viewer}/"),
                ("decision", decision),
                ("chain", f"{viewer}/chain"),
                ("stats", f"{viewer}/stats"),
                ("error", f"{viewer}/?limit=abc"),
            ):
                page.goto(url)
                assert overflow(page) <= 0, (width, name, overflow(page))
                shot = tmp_path / f"{'phone-' if width == 390 else 'wide-'}{name}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 5_000, shot
            # A wide table scrolls inside its own box; labels and hashes stay whole words or wrap.
            page.goto(decision)
            if width == 390:
                boxes = page.locator(".scroll").evaluate_all(
                    "els => els.map(e => [e.scrollWidth, e.clientWidth])"
                )
                assert boxes and all(client <= width for _, client in boxes)
                assert any(scroll > client for scroll, client in boxes)  # at least one table scrolls
                labels = page.locator("dl.kv dt").evaluate_all(
                    "els => els.map(e => e.getBoundingClientRect().height)"
                )
                assert max(labels) < 40  # one line each: no label broken mid-word
            page.close()
        icon = browser.new_page()
        response = icon.goto(f"{viewer}/favicon.ico")
        assert response is not None and response.status == 200
        browser.close()
