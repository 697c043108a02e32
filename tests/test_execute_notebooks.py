"""tools/execute_notebooks.py, the canonical way to re-run a notebook, on two small notebooks; and how its
client waits for the kernel (tools/notebook_files.py)."""

import asyncio
import json
import queue
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from notebook_files import in_slices

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "execute_notebooks.py"


def _notebook(path, *sources):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · Demo")] + [nbformat.v4.new_code_cell(s) for s in sources]
    for i, cell in enumerate(nb.cells):
        cell.id = f"demo-{i}"
    nbformat.write(nb, path)


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_executes_in_notebooks_folder_and_stores_what_a_reader_sees_before_running(tmp_path):
    path = tmp_path / "01-demo.ipynb"
    _notebook(
        path,
        "import os\nprint(os.path.basename(os.getcwd()))\nprint('two\\nlines')",
        "",
        "import ipywidgets as widgets\nwidgets.IntSlider(value=3, description='n')\n"
        "widgets.interactive(lambda n: print(n), n=widgets.IntSlider(value=4))  # prints into an Output",
        "import matplotlib.pyplot as plt\nfrom rnn_core import plots, progress_bar, widgets as w\n"
        "def show(n):\n    print(f'n: {n}')\n    fig, ax = plt.subplots(figsize=(2, 1))\n    plt.close(fig)\n"
        "    w.display(fig)\n"
        "for _ in progress_bar(range(3), desc='lags'):\n    pass\n"
        "from tqdm.auto import tqdm\nfor _ in tqdm(range(5), desc='raw'):\n    pass\n"
        "w.interactive(show, n=w.slider('n', 3, 0, 9))",
    )
    result = _run(path)
    assert result.returncode == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    assert text == nbformat.writes(nbformat.reads(text, as_version=4)) + "\n"  # nbformat's own layout
    nb = json.loads(text)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == [1, None, 2, 3]  # 1..n over the non-empty cells
    assert code[0]["outputs"][0]["text"] == [f"{tmp_path.name}\n", "two\n", "lines\n"]  # cwd: the notebook's folder
    assert [c["id"] for c in nb["cells"]] == ["demo-0", "demo-1", "demo-2", "demo-3", "demo-4"]
    assert all("execution" not in c["metadata"] for c in code)  # no timestamps
    # no live widget stored, nor any widget state; a plain widget: a line instead of its repr...
    assert "widgets" not in nb["metadata"] and "widget-view" not in text
    assert "".join(code[2]["outputs"][0]["data"]["text/plain"]).startswith("The widget appears when this cell runs")
    # ...a progress bar its final text, and the series' widget its line, its text and its figure
    bar, raw, line, printed, figure = code[3]["outputs"]
    assert "".join(bar["data"]["text/plain"]).startswith("lags: 100%") and list(bar["data"]) == ["text/plain"]
    # a tqdm bar of the notebook's own: its final state too, read from the widgets' state
    assert "".join(raw["data"]["text/plain"]).startswith("raw: 100%|██████████| 5/5 [")
    assert "".join(line["data"]["text/plain"]).startswith("The sliders appear when this cell runs")
    assert printed["text"] == ["n: 3\n"] and "image/png" in figure["data"]


def test_a_failing_cell_leaves_the_file_untouched(tmp_path):
    path = tmp_path / "02-broken.ipynb"
    _notebook(path, "x = 1", "raise ValueError('broken on purpose')")
    before = path.read_bytes()
    result = _run(path)
    assert result.returncode == 1
    assert "broken on purpose" in result.stderr and "left unchanged" in result.stderr
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_a_wait_for_the_kernel_looks_at_the_socket_again_when_each_slice_ends():
    """notebook_files.in_slices, how the client waits for a cell's reply: a reply whose wake-up was missed
    (a slice that ends in queue.Empty) is read by the next slice, and the caller's timeout still holds."""
    asked = []

    def kernel(replies):
        async def get_msg(timeout=None):
            asked.append(timeout)
            reply = next(replies, None)
            if reply is None:
                await asyncio.sleep(timeout)
                raise queue.Empty
            return reply

        return get_msg

    reply = {"msg_type": "execute_reply"}
    assert asyncio.run(in_slices(kernel(iter([None, None, reply])), seconds=0.01)(timeout=60)) is reply
    assert asked == [0.01, 0.01, 0.01]
    asked.clear()
    assert asyncio.run(in_slices(kernel(iter([None, reply])), seconds=0.01)()) is reply  # no timeout: slices
    assert asked == [0.01, 0.01]
    asked.clear()
    with pytest.raises(queue.Empty):  # nothing comes: Empty once the timeout is spent, not before
        asyncio.run(in_slices(kernel(iter([])), seconds=0.01)(timeout=0.05))
    assert len(asked) >= 2 and max(asked) <= 0.01
