"""Every page of the static site, read in Chromium on every screen (what a page must show: check_page in
tests/site/test_site.py, whose docstring says it all).

A file of its own so that the default command's two processes share the site tests (they take whole files,
``--dist loadfile``): this one reads the pages, and moves the sliders of those that have them, while the other
checks the rest. Each opens its own Chromium and server, on the one build (tests/site/site_build.py).
"""

from __future__ import annotations

import pytest
from test_site import PAGES, SCREENS, TABLET_PAGES, _page_id, _sliders_on, check_page

pytestmark = pytest.mark.site


@pytest.mark.parametrize("rel", PAGES, ids=_page_id)
def test_page_on_every_screen(reader, site, server, rel):
    # the page starts loading on its screens at once (the tablet only for TABLET_PAGES), then each is
    # read in turn
    widths = [width for width in SCREENS if width != 900 or rel in TABLET_PAGES]
    started = {width: reader.start(f"{server}/{rel}", width) for width in widths}
    problems = []
    try:
        for width, page in started.items():
            found = check_page(reader, site, server, rel, _sliders_on(rel), width, page)
            problems += [f"at {width} px: {problem}" for problem in found]
    finally:
        for page, _ in started.values():
            page.close()
    assert not problems, f"{rel}:\n  " + "\n  ".join(problems)
    assert not reader.blocked, f"pages asked the web for: {sorted(set(reader.blocked))[:10]}"
