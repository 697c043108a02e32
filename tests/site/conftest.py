"""The site test's fixtures: the site, built once per run (tests/site/site_build.py), its server and Chromium.
(Its marker, `site`, is declared in pyproject.toml: `-m "not site"` leaves it out.)"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from site_build import SiteBuild, build_folder, what_is_missing
from test_site import Reader, _missing


@pytest.fixture(scope="session")
def site(request):
    """The built site's folder (the README's command, with --out a temporary folder): the build the run's
    controller started in the background (tests/site/site_build.py), or one made here."""
    missing = what_is_missing()
    if missing:
        _missing(*missing)
    build = SiteBuild(build_folder(request.config))
    if not (build.started() or build.deferred()):  # -n 0, or a controller that did not start it
        build.start(low_priority=False)
    ok, said = build.result()
    assert ok, said
    print(said)
    return build.html


@pytest.fixture(scope="module")
def server(site):
    """A static file server for the site on a free port of 127.0.0.1; yields its base URL. A path
    with no file gets the site's 404.html with status 404, as GitHub Pages and most hosts do."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_error(self, code, message=None, explain=None):
            page = Path(self.directory, "404.html")
            if code != 404 or not page.is_file():
                return super().send_error(code, message, explain)
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def reader(site):
    r = Reader()
    try:
        yield r
    finally:
        r.close()
