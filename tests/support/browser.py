"""Open a page from disk in Debian's headless chromium with the network off (playwright drives
it; no browser download) and report what a person would see go wrong."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@dataclass
class PageCheck:
    blocked: list[str] = field(default_factory=list)  # requests for anything not on disk
    errors: list[str] = field(default_factory=list)  # console errors and page errors
    failed: list[str] = field(default_factory=list)  # requests that failed
    images: list[dict[str, Any]] = field(default_factory=list)  # natural/shown width, link
    title: str = ""
    text: str = ""  # the page's rendered text


def require_browser() -> Any:
    """playwright's sync API; skips where chromium or playwright is missing, except in CI,
    which installs both (.ci/run, the dev extra), so there a missing one fails the test."""
    missing = [] if CHROMIUM.exists() else [str(CHROMIUM)]
    try:
        from playwright import sync_api
    except ImportError:
        missing.append("playwright (python)")
        sync_api = None
    if missing and os.environ.get("CI"):
        pytest.fail(f"CI must provide {', '.join(missing)} for the browser test")
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (CI installs Debian's chromium)")
    return sync_api


def open_offline(page_path: Path, screenshot: Path) -> PageCheck:
    """Load `page_path` offline, every request other than file: and data: aborted and
    recorded; check the images; save a full-page screenshot."""
    sync_api = require_browser()
    check = PageCheck()

    def guard(route: Any) -> None:
        if route.request.url.startswith(("file:", "data:")):
            route.continue_()
        else:
            check.blocked.append(route.request.url)
            route.abort()

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=BROWSER_ARGS
        )
        try:
            context = browser.new_context(offline=True, viewport={"width": 1360, "height": 900})
            context.route("**/*", guard)
            page = context.new_page()
            page.on("console", lambda m: check.errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda err: check.errors.append(str(err)))
            page.on("requestfailed", lambda req: check.failed.append(req.url))
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            check.images = page.evaluate(
                "() => Array.from(document.images, i => ({w: i.naturalWidth, complete: i.complete,"
                " shown: i.getBoundingClientRect().width, link: i.closest('a')?.href ?? null}))"
            )
            check.title = page.title()
            check.text = page.inner_text("body")
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    return check
