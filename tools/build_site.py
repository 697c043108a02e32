"""Build the series as a static site that works offline: README.md as the home page, one page per notebook.

    .venv/bin/python tools/build_site.py              # into build/site/ (git ignores build/)
    .venv/bin/python tools/build_site.py --out DIR    # somewhere else (the site test does this)

Then open build/site/index.html in a browser (file:// works), or serve the folder:
``.venv/bin/python -m http.server --directory build/site``.

What it needs: the site tools of requirements-site.txt (Sphinx, MyST-NB, the book theme; the
README's test command installs them) and Node.js's npm. The pages load MathJax, RequireJS and the
Jupyter widgets' HTML manager from the site itself, never from the web: they come from the npm
registry, pinned in site/package-lock.json, and this script runs ``npm ci`` in site/ when
site/node_modules is missing or older than the lock file, then copies what the pages load into
the build's static folder. The notebooks are rendered from their committed outputs (no kernel
runs); cells tagged ``remove-cell`` are left out; widgets show their stored state. The Sphinx
configuration is site/conf.py.

A warning from Sphinx (a link to a missing page or heading, an image it cannot find) fails the
build, after listing every warning. Exit code 0 on success, 1 on a failed build, 2 when a tool
is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"  # the configuration and the npm packages
NODE_MODULES = SITE / "node_modules"
STAMP = NODE_MODULES / ".installed-from-lock"  # the sha256 of the package-lock.json installed
DEFAULT_OUT = ROOT / "build" / "site"

# what the pages load: (folder under node_modules, folder under the site's _static, what to leave out
# besides ASSET_SKIP)
ASSETS = [
    # tex-mml-chtml.js and the components it loads (the SVG output and Node.js's files are not used)
    ("mathjax", "mathjax", ("*-svg.js", "*-svg-nofont.js", "node-main*", "*.cjs", "*.mjs", "*.d.mts")),
    # its font, which it fetches piece by piece (site/mathjax-config.js says where): the CHTML parts
    ("@mathjax/mathjax-newcm-font", "mathjax/fonts/mathjax-newcm-font", ("cjs", "mjs", "svg*", "tex-*", "def")),
    ("requirejs", "requirejs", ("bin",)),  # require.js, which the widget manager needs
    ("@jupyter-widgets/html-manager/dist", "html-manager", ()),  # embed-amd.js and its fonts
]
ASSET_SKIP = ("*.map", "*.md", "*.ts", "package.json", "tsconfig*", "examples", "README*")


class BuildError(RuntimeError):
    """The build cannot go on; the message says why and what to do."""


def _lock_digest():
    return hashlib.sha256((SITE / "package-lock.json").read_bytes()).hexdigest()


def npm_ci(force=False):
    """Install site/node_modules from package-lock.json unless what is there was installed from it."""
    if not force and STAMP.exists() and STAMP.read_text().strip() == _lock_digest():
        return False
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError(
            "npm (Node.js) is not installed: it fetches MathJax and the widget manager for the site; "
            "install it (Debian/Ubuntu: `sudo apt-get install npm`) and run this again"
        )
    command = [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"]
    result = subprocess.run(command, cwd=SITE, capture_output=True, text=True)
    if result.returncode != 0:
        raise BuildError(f"`npm ci` in site/ failed (exit {result.returncode}):\n{result.stdout}{result.stderr}")
    STAMP.write_text(_lock_digest() + "\n")
    return True


def stage_assets(static_dir):
    """Copy what the pages load from site/node_modules into static_dir, replacing what was there."""
    static_dir = Path(static_dir)
    shutil.rmtree(static_dir, ignore_errors=True)
    for source, target, skip in ASSETS:
        src = NODE_MODULES / source
        if not src.is_dir():
            raise BuildError(f"{src} is missing: delete site/node_modules and run this again (it reinstalls)")
        shutil.copytree(src, static_dir / target, ignore=shutil.ignore_patterns(*ASSET_SKIP, *skip))


def sphinx_build(out, doctrees, static_dir, fresh=False):
    """Run Sphinx (HTML) on the repository with site/conf.py; raise BuildError on any warning."""
    env = dict(os.environ, RNN_SITE_STATIC=str(static_dir))
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-b",
        "html",
        "-c",
        str(SITE),
        "-d",
        str(doctrees),
        "-q",
        "-W",
        "--keep-going",
        str(ROOT),
        str(out),
    ]
    if fresh:
        command.insert(3, "-E")
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        missing = "No module named sphinx" in result.stderr
        hint = (
            "the site tools are not installed: `.venv/bin/pip install -r requirements-site.txt`"
            if missing
            else "fix what the warnings name"
        )
        raise BuildError(f"Sphinx failed (exit {result.returncode}); {hint}:\n{result.stdout}{result.stderr}")


def write_index(out):
    """index.html, which sends a browser on to the home page (the README's page)."""
    (Path(out) / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>rnn-from-scratch</title>\n'
        '<meta http-equiv="refresh" content="0; url=README.html"></head>\n'
        '<body><p><a href="README.html">rnn-from-scratch: the home page</a></p></body></html>\n',
        encoding="utf-8",
    )


def build(out=DEFAULT_OUT, fresh=False):
    """Build the whole site into `out`; returns the path of its index.html."""
    out = Path(out).resolve()
    work = out.parent / f".{out.name}-work"  # Sphinx's doctrees and the staged assets, kept for rebuilds
    npm_ci()
    stage_assets(work / "static")
    sphinx_build(out, work / "doctrees", work / "static", fresh=fresh)
    write_index(out)
    return out / "index.html"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output folder (default: build/site)")
    parser.add_argument("--fresh", action="store_true", help="rebuild every page, not only the changed ones")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    try:
        index = build(args.out, fresh=args.fresh)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2 if "not installed" in str(e) else 1
    print(f"site built in {time.monotonic() - t0:.0f} s: {index}")
    print(f"serve it with: {Path(sys.executable).name} -m http.server --directory {index.parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
