"""Build the series as a static site that works offline: README.md as the home page, one page per notebook.

    .venv/bin/python tools/build_site.py              # into build/site/ (git ignores build/)
    .venv/bin/python tools/build_site.py --out DIR    # somewhere else (the site test does this)

Then open build/site/index.html in a browser (file:// works), or serve the folder:
``.venv/bin/python -m http.server --directory build/site``.

What it needs: the site tools of requirements-site.txt (Sphinx, MyST-NB, the book theme; the
README's test command installs them) and Node.js's npm. The pages load MathJax from the site
itself, never from the web: it comes from the npm registry, pinned in site/package-lock.json, and
this script runs ``npm ci`` in site/ when site/node_modules is missing or older than the lock
file, then copies what the pages load into the build's static folder. The notebooks are rendered
from their committed outputs; cells tagged ``remove-cell`` are left out. The Sphinx configuration
is site/conf.py.

The sliders work on the site without a kernel: for each notebook with a slider cell, the build
runs the notebook in a kernel up to its last slider cell and computes what each slider cell shows
at a handful of positions (site/rnn_sliders.py says which), which a small script on the page
switches between. That needs what running the notebooks needs (the novel: $RNN_CORE_TEXT, or a
download once) and takes minutes; it is cached in build/.site-sliders/ (``--slider-cache`` names another folder) and
redone only for a notebook whose code, or rnn_core, changed. ``--no-slider-positions`` leaves it out: the slider
cells then show where they start, and say so.

The site also offers the series as a download, rnn-from-scratch.zip at its root, which every
page links: the repository's files as a clone has them (what git tracks, as they are in the
working tree; outside a git checkout, every file that .gitignore does not leave out), in a
folder rnn-from-scratch/. So never the novel, checkpoints, caches, build/ or .venv/.

A warning from Sphinx (a link to a missing page or heading, an image it cannot find) fails the
build, after listing every warning. Exit code 0 on success, 1 on a failed build, 2 when a tool
is missing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"  # the configuration and the npm packages
NODE_MODULES = SITE / "node_modules"
STAMP = NODE_MODULES / ".installed-from-lock"  # the sha256 of the package-lock.json installed
DEFAULT_OUT = ROOT / "build" / "site"
ARCHIVE_NAME = "rnn-from-scratch.zip"  # the series as a download; the first cell of every notebook names it
ARCHIVE_FOLDER = "rnn-from-scratch"  # what it unpacks into

# what the pages load: (folder under node_modules, folder under the site's _static, what to leave out
# besides ASSET_SKIP)
ASSETS = [
    # tex-mml-chtml.js and the components it loads (the SVG output and Node.js's files are not used)
    ("mathjax", "mathjax", ("*-svg.js", "*-svg-nofont.js", "node-main*", "*.cjs", "*.mjs", "*.d.mts")),
    # its font, which it fetches piece by piece (site/mathjax-config.js says where): the CHTML parts
    ("@mathjax/mathjax-newcm-font", "mathjax/fonts/mathjax-newcm-font", ("cjs", "mjs", "svg*", "tex-*", "def")),
]
SLIDER_CACHE = ROOT / "build" / ".site-sliders"  # the sliders' positions, kept between builds (site/rnn_sliders.py)
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
            "npm (Node.js) is not installed: it fetches MathJax for the site; "
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


def archive_files(root=ROOT):
    """The repository's files, as relative POSIX paths in sorted order, as a clone has them: what
    git tracks (those still on disk), or, outside a git checkout, every file that .gitignore does
    not leave out."""
    root = Path(root)
    git = shutil.which("git")
    if git and (root / ".git").exists():
        result = subprocess.run([git, "-C", str(root), "ls-files", "-z"], capture_output=True)
        if result.returncode == 0:
            names = result.stdout.decode("utf-8").split("\0")
            return sorted(name for name in names if name and (root / name).is_file())
    try:
        import pathspec
    except ImportError:
        raise BuildError(
            "not a git checkout, and pathspec (which reads .gitignore) is not installed: "
            "`.venv/bin/pip install -r requirements-site.txt`"
        ) from None
    ignore = root / ".gitignore"
    lines = ignore.read_text(encoding="utf-8").splitlines() if ignore.is_file() else []
    spec = pathspec.GitIgnoreSpec.from_lines([*lines, ".git"])
    names = []
    for folder, subfolders, files in os.walk(root):
        here = Path(folder).relative_to(root)
        subfolders[:] = [d for d in subfolders if not spec.match_file(f"{(here / d).as_posix()}/")]
        names += [(here / f).as_posix() for f in files if not spec.match_file((here / f).as_posix())]
    return sorted(names)


def make_archive(path, root=ROOT):
    """Write the series' archive (a zip of archive_files(root) in a folder ARCHIVE_FOLDER) to path.

    Files keep their permissions (.ci/run stays executable); every entry is dated with the newest
    of the files, so the same files give the same archive."""
    path, root = Path(path), Path(root)
    names = archive_files(root)
    if not names:
        raise BuildError(f"no files to put in {path.name}: is {root} the repository?")
    newest = max((root / name).stat().st_mtime for name in names)
    stamp = time.localtime(max(newest, 315532800 + 86400))[:6]  # zip dates start in 1980
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.parent.parent / f".{path.name}.partial"  # beside the folder the site copies
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in names:
            info = zipfile.ZipInfo(f"{ARCHIVE_FOLDER}/{name}", date_time=stamp)
            info.external_attr = ((root / name).stat().st_mode & 0o777 | 0o100000) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (root / name).read_bytes())
    partial.replace(path)  # never half a zip where the site links one
    return path


def _rnn_sliders():
    """site/rnn_sliders.py, the sliders' precomputation, loaded from its file (site/ is not a package)."""
    spec = importlib.util.spec_from_file_location("rnn_sliders", SITE / "rnn_sliders.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def slider_positions(static_dir, work, cache=SLIDER_CACHE, notebooks=None, positions=None):
    """Compute (or take from the cache) every slider cell's positions; copy their figures into
    static_dir/sliders/<notebook>/ and write them all to work/sliders.json, which it returns.

    notebooks: the folder whose notebooks run to compute them (default: the series' own); the test
    suite passes copies of the notebooks with shorter runs, under the same names and cells.
    positions: per slider, besides its start (default site/rnn_sliders.py's POSITIONS); the test
    suite takes 2, the two ends, which is all it moves a slider to."""
    rnn_sliders = _rnn_sliders()
    try:
        from rnn_core import practice
    except ImportError as e:
        raise BuildError(
            f"the sliders' positions need rnn_core and its extra ({e}): `pip install -e .[notebooks]`"
        ) from e
    found = {}
    with tempfile.TemporaryDirectory(prefix="rnn_core_my_rnn_") as folder:
        with contextlib.redirect_stdout(io.StringIO()):
            practice.my_rnn(Path(folder) / "my_rnn.py")  # the reader's file as first made (execute_notebooks.py)
        saved = os.environ.get(practice.MY_RNN_ENV)
        os.environ[practice.MY_RNN_ENV] = str(Path(folder) / "my_rnn.py")  # the kernels inherit it
        try:
            source = ROOT / "notebooks" if notebooks is None else Path(notebooks)
            paths = sorted(source.glob("[0-9][0-9]-*.ipynb"))

            def timed(path):
                t0 = time.monotonic()
                n = rnn_sliders.POSITIONS if positions is None else positions
                return rnn_sliders.precompute(path, cache, n=n), time.monotonic() - t0

            # two kernels at a time: each notebook runs in its own, and most of a kernel's time is
            # one core's work (their BLAS threads are what the environment says)
            with concurrent.futures.ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
                runs = {path: pool.submit(timed, path) for path in paths}
            for path, run in runs.items():
                try:
                    data, seconds = run.result()
                except Exception as e:
                    raise BuildError(
                        f"{path.name} could not run to compute its sliders' positions ({type(e).__name__}: {e}); "
                        "the notebooks need the novel ($RNN_CORE_TEXT, or an internet connection once), "
                        "or build with --no-slider-positions"
                    ) from e
                if data is None:
                    continue
                if seconds > 5:
                    print(f"{path.name}: the sliders' positions computed in {seconds:.0f} s")
                shutil.copytree(Path(cache) / data["folder"], Path(static_dir) / "sliders" / path.stem)
                (Path(static_dir) / "sliders" / path.stem / "sliders.json").unlink()
                found[path.stem] = data["cells"]
        finally:
            if saved is None:
                os.environ.pop(practice.MY_RNN_ENV, None)
            else:
                os.environ[practice.MY_RNN_ENV] = saved
    target = Path(work) / "sliders.json"
    target.write_text(json.dumps(found), encoding="utf-8")
    return target


def sphinx_build(out, doctrees, static_dir, fresh=False, archive=None, sliders=None):
    """Run Sphinx (HTML) on the repository with site/conf.py; raise BuildError on any warning.

    archive: the series' archive, which the site serves at its root and links from every page.
    sliders: the file of the sliders' positions (slider_positions), or None."""
    env = dict(os.environ, RNN_SITE_STATIC=str(static_dir))
    if sliders is not None:
        env["RNN_SITE_SLIDERS"] = str(sliders)
    if archive is not None:
        env["RNN_SITE_ARCHIVE"] = str(archive)
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


def build(
    out=DEFAULT_OUT, fresh=False, sliders=True, slider_notebooks=None, slider_positions_each=None, slider_cache=None
):
    """Build the whole site into `out`; returns the path of its index.html.

    sliders: compute the sliders' positions (False: the slider cells show where they start).
    slider_notebooks: the folder of the notebooks run for them (slider_positions).
    slider_positions_each: positions per slider besides its start (slider_positions' positions).
    slider_cache: the folder they are kept in (default SLIDER_CACHE)."""
    out = Path(out).resolve()
    work = out.parent / f".{out.name}-work"  # Sphinx's doctrees and the staged assets, kept for rebuilds
    npm_ci()
    stage_assets(work / "static")
    positions = (
        slider_positions(
            work / "static",
            work,
            cache=SLIDER_CACHE if slider_cache is None else Path(slider_cache),
            notebooks=slider_notebooks,
            positions=slider_positions_each,
        )
        if sliders
        else None
    )
    archive = make_archive(work / "archive" / ARCHIVE_NAME)
    # Sphinx copies the static files on every build but never deletes one: start from none, so that
    # nothing an older build copied (MathJax 3's files, say) stays on the site
    shutil.rmtree(out / "_static", ignore_errors=True)
    sphinx_build(out, work / "doctrees", work / "static", fresh=fresh, archive=archive, sliders=positions)
    write_index(out)
    return out / "index.html"


def _at_least_two(text):
    """--slider-positions' value: a whole number of at least 2 (a slider's two ends)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"{value} positions cannot hold both ends of a slider: give 2 or more")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output folder (default: build/site)")
    parser.add_argument("--fresh", action="store_true", help="rebuild every page, not only the changed ones")
    parser.add_argument(
        "--no-slider-positions",
        action="store_true",
        help="run no notebook: the slider cells show where they start (quicker; no novel needed)",
    )
    parser.add_argument(
        "--slider-notebooks",
        metavar="FOLDER",
        help="run these copies of the notebooks (same names and cells) for the sliders' positions, "
        "instead of notebooks/: the test suite's copies with shorter runs",
    )
    parser.add_argument(
        "--slider-positions",
        metavar="N",
        type=_at_least_two,
        help="compute N positions of each slider besides where it starts (default: 5, and every stop of a "
        "slider with up to 12); the test suite takes 2, the two ends, which is all it moves a slider to",
    )
    parser.add_argument(
        "--slider-cache",
        metavar="FOLDER",
        help="keep the sliders' positions in this folder instead of build/.site-sliders/ (the test suite's, "
        "which nbval's kernels fill as they run the notebooks)",
    )
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    try:
        index = build(
            args.out,
            fresh=args.fresh,
            sliders=not args.no_slider_positions,
            slider_notebooks=args.slider_notebooks,
            slider_positions_each=args.slider_positions,
            slider_cache=args.slider_cache,
        )
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2 if "not installed" in str(e) else 1
    print(f"site built in {time.monotonic() - t0:.0f} s: {index}")
    print(f"serve it with: {Path(sys.executable).name} -m http.server --directory {index.parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
